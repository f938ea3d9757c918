import { LocalContext } from '@tether/machine';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestRepo } from './git-test-repo.js';
import { TEST_GIT_ENV, makeTestRepo } from './git-test-repo.js';
import { SessionGit } from './session-git.js';

let repo: TestRepo;
let notes: { level: string; text: string }[];
let cwd: string;

function sessionGit(): SessionGit {
  const context = new LocalContext({ env: TEST_GIT_ENV });
  return new SessionGit({
    session: (id) => (id === 's1' ? { place: 'local', cwd } : undefined),
    contexts: (place) => (place === 'local' ? context : undefined),
    note: (_id, level, text) => notes.push({ level, text }),
  });
}

beforeEach(() => {
  repo = makeTestRepo();
  cwd = repo.clone;
  notes = [];
});
afterEach(() => repo.cleanup());

describe('SessionGit against the real git', () => {
  it('stages a file whose name is an option and holds a newline as that one file, nothing else', async () => {
    const hostile = '--all\nx';
    writeFileSync(join(repo.clone, hostile), 'hostile\n');
    writeFileSync(join(repo.clone, 'other.txt'), 'left alone\n');
    const git = sessionGit();
    const status = await git.status('s1');
    expect(status.ok && status.value.files.map((f) => f.path).sort()).toEqual([hostile, 'other.txt'].sort());
    const staged = await git.stage('s1', [hostile]);
    expect(staged.ok).toBe(true);
    if (!staged.ok) return;
    const byPath = new Map(staged.value.status.files.map((f) => [f.path, f]));
    expect(byPath.get(hostile)?.index).toBe('A');
    expect(byPath.get('other.txt')?.index).toBe('?');
    // The transcript's line names the file quoted, as one argument.
    expect(notes.at(-1)).toEqual({
      level: 'info',
      text: `$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false --literal-pathspecs add -- '--all\nx'`,
    });
    const diff = await git.diff('s1', hostile, true);
    expect(diff.ok && diff.value.diff).toContain('+hostile');
  });

  it('takes a glob character in a name literally', async () => {
    writeFileSync(join(repo.clone, '*.txt'), 'star\n');
    writeFileSync(join(repo.clone, 'b.txt'), 'b\n');
    const staged = await sessionGit().stage('s1', ['*.txt']);
    const files = staged.ok ? staged.value.status.files : [];
    expect(files.find((f) => f.path === '*.txt')?.index).toBe('A');
    expect(files.find((f) => f.path === 'b.txt')?.index).toBe('?');
  });

  it('commits and pushes to the upstream, and the bare remote has the commit', async () => {
    writeFileSync(join(repo.clone, 'a.txt'), 'a\n');
    const git = sessionGit();
    expect((await git.stage('s1', ['a.txt'])).ok).toBe(true);
    const committed = await git.commit('s1', 'Add a');
    expect(committed.ok && committed.value.status).toMatchObject({ branch: 'main', ahead: 1, behind: 0, files: [] });
    const pushed = await git.push('s1', false);
    expect(pushed.ok && pushed.value.status.ahead).toBe(0);
    expect(repo.git(repo.remote, 'log', '--format=%s', 'main')).toBe('Add a\nstart\n');
    expect(notes.map((n) => n.text)).toEqual([
      '$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false --literal-pathspecs add -- a.txt',
      "$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false commit --quiet --no-edit -m 'Add a'",
      '$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false push --porcelain origin HEAD:refs/heads/main',
    ]);
  });

  it("refuses a push another clone got in before, with git's reason", async () => {
    const other = join(repo.top, 'other');
    repo.git(repo.top, 'clone', '--quiet', repo.remote, other);
    repo.git(other, 'commit', '--quiet', '--allow-empty', '-m', 'theirs');
    repo.git(other, 'push', '--quiet');
    writeFileSync(join(repo.clone, 'a.txt'), 'a\n');
    const git = sessionGit();
    await git.stage('s1', ['a.txt']);
    await git.commit('s1', 'mine');
    const pushed = await git.push('s1', false);
    expect(pushed.ok).toBe(false);
    if (pushed.ok) return;
    expect(pushed.error.code).toBe('conflict');
    expect(pushed.error.message).toMatch(/^push rejected: /);
    expect(pushed.error.message).toContain('fetch first');
    expect(notes.at(-1)?.level).toBe('warning');
    expect(repo.git(repo.remote, 'log', '--format=%s', 'main')).toBe('theirs\nstart\n');
  });

  it('force-pushes with a lease only when asked', async () => {
    repo.git(repo.clone, 'commit', '--quiet', '--allow-empty', '-m', 'one');
    repo.git(repo.clone, 'push', '--quiet');
    repo.git(repo.clone, 'reset', '--quiet', '--hard', 'HEAD~1');
    repo.git(repo.clone, 'commit', '--quiet', '--allow-empty', '-m', 'two');
    const git = sessionGit();
    expect((await git.push('s1', false)).ok).toBe(false);
    const forced = await git.push('s1', true);
    expect(forced.ok && forced.value.command).toBe(
      'git -c core.hooksPath=/dev/null -c core.fsmonitor=false push --porcelain --force-with-lease origin HEAD:refs/heads/main',
    );
    expect(repo.git(repo.remote, 'log', '--format=%s', 'main')).toBe('two\nstart\n');
  });

  it('refuses a folder that is not a repository', async () => {
    cwd = join(repo.top, 'plain');
    mkdirSync(cwd);
    const status = await sessionGit().status('s1');
    expect(!status.ok && status.error).toMatchObject({
      code: 'unsupported',
      message: `${cwd} is not in a git repository`,
    });
  });

  it('refuses a commit with nothing staged, and runs nothing', async () => {
    writeFileSync(join(repo.clone, 'a.txt'), 'unstaged\n');
    const committed = await sessionGit().commit('s1', 'empty');
    expect(!committed.ok && committed.error.code).toBe('conflict');
    expect(!committed.ok && committed.error.message).toMatch(/^nothing to commit/);
    expect(notes).toEqual([]);
  });

  it('refuses to commit or push on a detached HEAD', async () => {
    repo.git(repo.clone, 'checkout', '--quiet', '--detach');
    writeFileSync(join(repo.clone, 'a.txt'), 'a\n');
    const git = sessionGit();
    const status = await git.status('s1');
    expect(status.ok && status.value.branch).toBeUndefined();
    await git.stage('s1', ['a.txt']);
    const committed = await git.commit('s1', 'lost');
    expect(!committed.ok && committed.error.message).toMatch(/detached/);
    const pushed = await git.push('s1', false);
    expect(!pushed.ok && pushed.error.message).toMatch(/detached/);
  });

  it('unstages a file, and finds the repository from a folder inside it', async () => {
    mkdirSync(join(repo.clone, 'sub'));
    writeFileSync(join(repo.clone, 'sub', 'a.txt'), 'a\n');
    cwd = join(repo.clone, 'sub');
    const git = sessionGit();
    await git.stage('s1', ['sub/a.txt']);
    const unstaged = await git.unstage('s1', ['sub/a.txt']);
    expect(unstaged.ok && unstaged.value.status.files).toEqual([{ path: 'sub/a.txt', index: '?', worktree: '?' }]);
    expect(existsSync(join(repo.clone, 'sub', 'a.txt'))).toBe(true);
  });

  it('gives the compare page when gh cannot open a pull request', async () => {
    repo.git(repo.clone, 'remote', 'set-url', 'origin', 'https://user:secret@github.com/acme/widget.git');
    const pr = await sessionGit().pullRequest('s1');
    expect(pr.ok && pr.value).toMatchObject({
      via: 'compare',
      url: 'https://github.com/acme/widget/compare/main?expand=1',
    });
  });
});

describe("a repository's own settings that name programs", () => {
  /** A marker file a program from the repository would write, outside it. */
  const marker = () => join(repo.top, 'ran');
  const writesMarker = () => `touch '${marker()}'`;

  it("runs no hook of the repository's on a commit (they are its code, never shown)", async () => {
    const hooks = join(repo.clone, '.git', 'hooks');
    mkdirSync(hooks, { recursive: true });
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit']) {
      writeFileSync(join(hooks, hook), `#!/bin/sh\n${writesMarker()}\n`, { mode: 0o755 });
    }
    writeFileSync(join(repo.clone, 'a.txt'), 'a\n');
    const git = sessionGit();
    await git.stage('s1', ['a.txt']);
    const committed = await git.commit('s1', 'Add a');
    expect(committed.ok).toBe(true);
    expect(existsSync(marker())).toBe(false);
    // The line in the transcript is the whole command that ran, the hooks' folder with it.
    expect(notes.at(-1)?.text).toContain('core.hooksPath=/dev/null');
  });

  it('refuses, running nothing, where its own config names a program git would run', async () => {
    for (const [key, value] of [
      ['core.fsmonitor', writesMarker()],
      ['core.sshCommand', writesMarker()],
      ['filter.evil.clean', writesMarker()],
      ['credential.helper', `!${writesMarker()}`],
      ['remote.origin.receivepack', writesMarker()],
    ] as const) {
      repo.git(repo.clone, 'config', '--local', key, value);
      writeFileSync(join(repo.clone, '.gitattributes'), '* filter=evil\n');
      writeFileSync(join(repo.clone, 'a.txt'), 'a\n');
      const git = sessionGit();
      const status = await git.status('s1');
      expect(status.ok ? 'ran' : status.error.code).toBe('forbidden');
      expect(status.ok ? '' : status.error.message).toContain(key.toLowerCase());
      expect((await git.stage('s1', ['a.txt'])).ok).toBe(false);
      expect((await git.push('s1', false)).ok).toBe(false);
      expect(existsSync(marker())).toBe(false);
      repo.git(repo.clone, 'config', '--local', '--unset', key);
    }
    expect(notes).toEqual([]);
  });

  it('reads such a setting through an included file too', async () => {
    const included = join(repo.top, 'more.config');
    writeFileSync(included, `[core]\n\tfsmonitor = ${writesMarker()}\n`);
    repo.git(repo.clone, 'config', '--local', 'include.path', included);
    const status = await sessionGit().status('s1');
    expect(status.ok ? 'ran' : status.error.code).toBe('forbidden');
    expect(existsSync(marker())).toBe(false);
  });

  it("takes git's own fsmonitor (a yes or no, not a program)", async () => {
    repo.git(repo.clone, 'config', '--local', 'core.fsmonitor', 'false');
    expect((await sessionGit().status('s1')).ok).toBe(true);
  });
});
