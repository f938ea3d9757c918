import type { ExecutionContext } from '@tether/machine';
import type { GitPullRequest, GitStatus, GitWrite, Result, SessionSummary } from '@tether/shared-protocol';
import { MAX_GIT_DIFF, fail, ok } from '@tether/shared-protocol';
import type { GitRun } from './git-runner.js';
import { commandLine, runGit } from './git-runner.js';
import { refuseSettingsThatRun } from './git-settings.js';
import { compareUrl, isStaged, parseStatus } from './git-status.js';

/**
 * Git in a session's folder, for the phone and the CLI (`git.*`). Reads and writes go through
 * `runGit` in the session's place; every write's exact command line is appended to the session's
 * transcript as an `info` notice (a `warning` with git's reason when it failed), so what was done
 * to the repository is there for everyone watching, whoever did it. Calls on one session run one
 * at a time (git's index lock would refuse a second anyway); a few more wait, beyond that `busy`.
 */

/** Calls on one session waiting behind the running one: more is a device in a loop. */
const MAX_WAITING = 4;
/** Characters of git's output kept in a write's answer and in its transcript notice. */
const MAX_WRITE_OUTPUT = 64 * 1024;
const MAX_NOTICE_REASON = 3000;

export interface SessionGitDeps {
  session: (id: string) => Pick<SessionSummary, 'place' | 'cwd'> | undefined;
  contexts: (place: string) => ExecutionContext | undefined;
  note: (sessionId: string, level: 'info' | 'warning', text: string) => void;
}

/** A repository found from a session's folder: where git runs, and the place's context. */
interface Repo {
  sessionId: string;
  context: ExecutionContext;
  root: string;
}

export class SessionGit {
  private readonly queues = new Map<string, { tail: Promise<unknown>; waiting: number }>();

  constructor(private readonly deps: SessionGitDeps) {}

  status(id: string): Promise<Result<GitStatus>> {
    return this.withRepo(id, (repo) => this.readStatus(repo));
  }

  diff(id: string, path: string, staged: boolean): Promise<Result<{ path: string; diff: string; truncated: boolean }>> {
    return this.withRepo(id, async (repo) => {
      const status = await this.readStatus(repo);
      if (!status.ok) return status;
      const file = status.value.files.find((f) => f.path === path);
      if (!file) return fail('not-found', `${path} has no change`);
      const args =
        file.index === '?'
          ? ['diff', '--no-color', '--no-ext-diff', '--no-index', '--', '/dev/null', path]
          : ['diff', '--no-color', '--no-ext-diff', '--no-textconv', ...(staged ? ['--cached'] : []), '--', path];
      const run = await this.git(repo, ['--literal-pathspecs', ...args]);
      if (!run.ok) return run;
      if (run.value.code !== 0 && run.value.code !== 1) return gitFailed(run.value);
      const truncated = run.value.truncated || run.value.stdout.length > MAX_GIT_DIFF;
      return ok({ path, diff: run.value.stdout.slice(0, MAX_GIT_DIFF), truncated });
    });
  }

  stage(id: string, paths: readonly string[]): Promise<Result<GitWrite>> {
    return this.withRepo(id, (repo) => this.write(repo, ['--literal-pathspecs', 'add', '--', ...paths]));
  }

  unstage(id: string, paths: readonly string[]): Promise<Result<GitWrite>> {
    return this.withRepo(id, async (repo) => {
      const status = await this.readStatus(repo);
      if (!status.ok) return status;
      // Before the first commit there is no HEAD to restore from: the files leave the index.
      const args = status.value.head
        ? ['restore', '--staged', '--', ...paths]
        : ['rm', '--cached', '--quiet', '-r', '--', ...paths];
      return this.write(repo, ['--literal-pathspecs', ...args]);
    });
  }

  commit(id: string, message: string): Promise<Result<GitWrite>> {
    return this.withRepo(id, async (repo) => {
      const status = await this.readStatus(repo);
      if (!status.ok) return status;
      if (status.value.branch === undefined) {
        return fail('conflict', 'HEAD is detached: check out a branch before committing, so the commit is not lost');
      }
      if (!status.value.files.some(isStaged)) {
        return fail('conflict', 'nothing to commit: stage the files to commit first');
      }
      return this.write(repo, ['commit', '--quiet', '--no-edit', '-m', message]);
    });
  }

  push(id: string, forceWithLease: boolean): Promise<Result<GitWrite>> {
    return this.withRepo(id, async (repo) => {
      const status = await this.readStatus(repo);
      if (!status.ok) return status;
      const branch = status.value.branch;
      if (branch === undefined) return fail('conflict', 'HEAD is detached: there is no branch to push');
      if (!status.value.head) return fail('conflict', `${branch} has no commit to push yet`);
      const target = await this.pushTarget(repo, branch, status.value.upstream);
      if (!target.ok) return target;
      const force = forceWithLease ? ['--force-with-lease'] : [];
      return this.write(repo, ['push', '--porcelain', ...force, ...target.value]);
    });
  }

  /** Opens a pull request with `gh` when it is there and signed in; else the remote's page for one. */
  pullRequest(id: string): Promise<Result<GitPullRequest>> {
    return this.withRepo(id, async (repo): Promise<Result<GitPullRequest>> => {
      const status = await this.readStatus(repo);
      if (!status.ok) return status;
      const branch = status.value.branch;
      if (branch === undefined) return fail('conflict', 'HEAD is detached: a pull request needs a branch');
      const auth = await runGit(repo.context, repo.root, ['auth', 'status'], { program: 'gh' });
      let reason: string;
      if (!auth.ok) reason = 'gh is not installed where this session runs';
      else if (auth.value.code !== 0) reason = 'gh is not signed in (gh auth login)';
      else {
        const args = ['pr', 'create', '--fill', '--head', branch];
        const created = await runGit(repo.context, repo.root, args, { program: 'gh' });
        if (!created.ok) return created;
        const command = commandLine('gh', args);
        const url = created.value.stdout.trim().split('\n').pop() ?? '';
        if (created.value.code === 0 && /^https:\/\/\S+$/.test(url)) {
          this.deps.note(repo.sessionId, 'info', `$ ${command}\n${url}`);
          return ok({ via: 'gh', url, command });
        }
        this.deps.note(repo.sessionId, 'warning', `$ ${command}\n${reasonOf(created.value)}`);
        reason = `gh could not open it: ${reasonOf(created.value)}`;
      }
      const remote = await this.remoteOf(repo, branch, status.value.upstream);
      const got = await this.git(repo, ['remote', 'get-url', '--', remote]);
      const url = got.ok && got.value.code === 0 ? compareUrl(got.value.stdout, branch) : undefined;
      if (url === undefined) {
        return ok({
          via: 'none',
          reason: `${reason}, and the remote ${remote} is not on a host whose pull request page Tether knows`,
        });
      }
      return ok({ via: 'compare', url, reason });
    });
  }

  /** `remote refspec`: the upstream's, or with none `-u origin branch` (then tracked from now on). */
  private async pushTarget(repo: Repo, branch: string, upstream: string | undefined): Promise<Result<string[]>> {
    if (upstream === undefined) {
      const remotes = await this.git(repo, ['remote']);
      if (!remotes.ok) return remotes;
      if (!remotes.value.stdout.split('\n').includes('origin')) {
        return fail('conflict', `${branch} has no upstream and there is no remote named origin to push it to`);
      }
      return ok(['--set-upstream', 'origin', `HEAD:refs/heads/${branch}`]);
    }
    const remote = await this.remoteOf(repo, branch, upstream);
    const merge = await this.git(repo, ['config', '--get', `branch.${branch}.merge`]);
    const ref = merge.ok && merge.value.code === 0 ? merge.value.stdout.trim() : '';
    if (!ref.startsWith('refs/') || remote.startsWith('-')) {
      return fail('conflict', `${branch}'s upstream ${upstream} is not a branch of a remote this can push to`);
    }
    return ok([remote, `HEAD:${ref}`]);
  }

  private async remoteOf(repo: Repo, branch: string, upstream: string | undefined): Promise<string> {
    if (upstream === undefined) return 'origin';
    const got = await this.git(repo, ['config', '--get', `branch.${branch}.remote`]);
    return got.ok && got.value.code === 0 && got.value.stdout.trim() ? got.value.stdout.trim() : 'origin';
  }

  /** Runs a write, notes its command line in the transcript, and answers with the status after it. */
  private async write(repo: Repo, args: string[]): Promise<Result<GitWrite>> {
    const command = commandLine('git', args);
    const run = await this.git(repo, args);
    if (!run.ok) {
      this.deps.note(repo.sessionId, 'warning', `$ ${command}\n${run.error.message.slice(0, MAX_NOTICE_REASON)}`);
      return run;
    }
    if (run.value.code !== 0) {
      const reason = reasonOf(run.value);
      this.deps.note(repo.sessionId, 'warning', `$ ${command}\n${reason.slice(0, MAX_NOTICE_REASON)}`);
      const rejected = args[0] === 'push' && /rejected/.test(run.value.stdout + run.value.stderr);
      return fail(
        'conflict',
        `${rejected ? 'push rejected' : `git ${args.find((a) => !a.startsWith('-'))} failed`}: ${reason}`,
      );
    }
    this.deps.note(repo.sessionId, 'info', `$ ${command}`);
    const status = await this.readStatus(repo);
    if (!status.ok) return status;
    const output = (run.value.stdout + run.value.stderr).slice(0, MAX_WRITE_OUTPUT);
    return ok({ command, output, status: status.value });
  }

  private async readStatus(repo: Repo): Promise<Result<GitStatus>> {
    const run = await this.git(repo, ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all']);
    if (!run.ok) return run;
    if (run.value.code !== 0) return gitFailed(run.value);
    const status = parseStatus(repo.root, run.value.stdout);
    if (run.value.truncated) status.truncated = true;
    return ok(status);
  }

  private git(repo: Repo, args: string[]): Promise<Result<GitRun>> {
    return runGit(repo.context, repo.root, args);
  }

  /** Finds the session's repository and runs `work` in it, after the session's earlier calls. */
  private async withRepo<T>(id: string, work: (repo: Repo) => Promise<Result<T>>): Promise<Result<T>> {
    const session = this.deps.session(id);
    if (!session) return fail('not-found', `no session ${id}`);
    const context = this.deps.contexts(session.place);
    if (!context) return fail('unavailable', `${session.place} is not connected`);
    const queue = this.queues.get(id) ?? { tail: Promise.resolve(), waiting: 0 };
    if (queue.waiting > MAX_WAITING) return fail('busy', 'git is busy in this session: try again when it is done');
    queue.waiting++;
    this.queues.set(id, queue);
    const run = queue.tail.then(async () => {
      const top = await runGit(context, session.cwd, ['rev-parse', '--show-toplevel']);
      if (!top.ok) return top;
      if (top.value.code !== 0) return fail('unsupported', `${session.cwd} is not in a git repository`);
      const root = top.value.stdout.replace(/\n$/, '');
      const settings = await refuseSettingsThatRun(context, root);
      if (!settings.ok) return settings;
      return work({ sessionId: id, context, root });
    });
    queue.tail = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      if (--queue.waiting === 0) this.queues.delete(id);
    }
  }
}

/** Git's own words for why it failed: its error lines, else all it said. */
function reasonOf(run: GitRun): string {
  if (run.timedOut) return 'it took too long and was stopped';
  // A push's `--porcelain` lines that begin with `!` name each refused ref and git's reason for it.
  const refused = run.stdout.split('\n').filter((line) => line.startsWith('!'));
  const said = [...refused, run.stderr.trim()].join('\n').trim() || run.stdout.trim();
  return said.slice(0, MAX_WRITE_OUTPUT) || `exit code ${run.code}`;
}

function gitFailed(run: GitRun): Result<never> {
  return fail('conflict', `git failed: ${reasonOf(run)}`);
}
