import type { GitFile, GitStatus } from '@tether/shared-protocol';
import { MAX_GIT_FILES } from '@tether/shared-protocol';

/**
 * Reads `git status --porcelain=v2 --branch -z`: NUL-separated records, paths as they are (no
 * quoting, a newline in a name stays in the name), relative to the repository's top.
 */
export function parseStatus(root: string, text: string): GitStatus {
  const status: GitStatus = { root, ahead: 0, behind: 0, files: [], truncated: false };
  const fields = text.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const record = fields[i]!;
    if (record === '') continue;
    if (record.startsWith('# ')) {
      header(status, record.slice(2));
      continue;
    }
    let file: GitFile | undefined;
    if (record.startsWith('1 ')) file = changed(record, 8);
    else if (record.startsWith('2 ')) {
      file = changed(record, 9);
      const from = fields[++i];
      if (file && from) file.from = from;
    } else if (record.startsWith('u ')) file = changed(record, 10);
    else if (record.startsWith('? ')) file = { path: record.slice(2), index: '?', worktree: '?' };
    if (!file || file.path === '') continue;
    if (status.files.length >= MAX_GIT_FILES) status.truncated = true;
    else status.files.push(file);
  }
  return status;
}

function header(status: GitStatus, line: string): void {
  const space = line.indexOf(' ');
  const key = line.slice(0, space);
  const value = line.slice(space + 1);
  if (key === 'branch.oid' && value !== '(initial)') status.head = value;
  else if (key === 'branch.head' && value !== '(detached)') status.branch = value;
  else if (key === 'branch.upstream') status.upstream = value;
  else if (key === 'branch.ab') {
    const match = /^\+(\d+) -(\d+)$/.exec(value);
    if (match) {
      status.ahead = Number(match[1]);
      status.behind = Number(match[2]);
    }
  }
}

/** A `1`, `2` or `u` record: its XY letters, and its path after `spaces` space-separated fields. */
function changed(record: string, spaces: number): GitFile | undefined {
  let at = 0;
  for (let n = 0; n < spaces; n++) {
    at = record.indexOf(' ', at) + 1;
    if (at === 0) return undefined;
  }
  const xy = record.slice(2, 4);
  if (xy.length !== 2) return undefined;
  return { path: record.slice(at), index: xy[0]!, worktree: xy[1]! };
}

/** Whether a file has a change in the index (what a commit would take). */
export function isStaged(file: GitFile): boolean {
  return file.index !== '.' && file.index !== '?';
}

/**
 * The web page for opening a pull request from `branch`, for a remote on GitHub, GitLab or
 * Bitbucket; undefined for any other host (Tether does not guess a page's shape). Only the host
 * and the repository's path are kept: a user name or token in the remote's URL never reaches it.
 */
export function compareUrl(remoteUrl: string, branch: string): string | undefined {
  const repo = remoteRepo(remoteUrl.trim());
  if (!repo) return undefined;
  const b = encodeURIComponent(branch).replace(/%2F/g, '/');
  if (repo.host === 'github.com') return `https://github.com/${repo.path}/compare/${b}?expand=1`;
  if (repo.host === 'gitlab.com') {
    return `https://gitlab.com/${repo.path}/-/merge_requests/new?merge_request%5Bsource_branch%5D=${encodeURIComponent(branch)}`;
  }
  if (repo.host === 'bitbucket.org') {
    return `https://bitbucket.org/${repo.path}/pull-requests/new?source=${encodeURIComponent(branch)}`;
  }
  return undefined;
}

const REPO_PATH = /^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+$/;

function remoteRepo(url: string): { host: string; path: string } | undefined {
  let host: string;
  let path: string;
  const scp = /^(?:[^@/:]+@)?([A-Za-z0-9.-]+):(?!\/)(.+)$/.exec(url);
  if (scp && !url.includes('://')) {
    host = scp[1]!;
    path = scp[2]!;
  } else {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    if (!['https:', 'http:', 'ssh:', 'git:'].includes(parsed.protocol)) return undefined;
    host = parsed.hostname;
    path = parsed.pathname.replace(/^\/+/, '');
  }
  path = path.replace(/\/+$/, '').replace(/\.git$/, '');
  if (!REPO_PATH.test(path) || path.split('/').some((part) => part === '..' || part === '.')) return undefined;
  return { host: host.toLowerCase(), path };
}
