import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Git for a test's host and for the test itself: a fixed author, nobody's own configuration. */
export const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Phone',
  GIT_AUTHOR_EMAIL: 'phone@example.invalid',
  GIT_COMMITTER_NAME: 'Phone',
  GIT_COMMITTER_EMAIL: 'phone@example.invalid',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
}

/**
 * A repository `repo` in `dir` with one commit on `main`, pushed to and tracking a bare `remote.git`
 * beside it, and `notes.txt` written but not yet added.
 */
export function repoWithRemote(dir: string): { repo: string; remote: string } {
  const remote = join(dir, 'remote.git');
  const repo = join(dir, 'repo');
  git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', remote);
  mkdirSync(repo);
  git(repo, 'init', '--quiet', '--initial-branch=main');
  git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'start');
  git(repo, 'remote', 'add', 'origin', remote);
  git(repo, 'push', '--quiet', '-u', 'origin', 'main');
  writeFileSync(join(repo, 'notes.txt'), 'from the phone\n');
  return { repo, remote };
}
