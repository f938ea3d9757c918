import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * For tests: a real repository with a bare repository as its `origin`, one commit on `main`
 * pushed and tracked. Every git run here has a fixed author and ignores the user's own config.
 */

export const TEST_GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

export interface TestRepo {
  top: string;
  remote: string;
  clone: string;
  git: (cwd: string, ...args: string[]) => string;
  cleanup: () => void;
}

export function makeTestRepo(): TestRepo {
  const top = realpathSync(mkdtempSync(join(tmpdir(), 'tether-git-')));
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env: TEST_GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const remote = join(top, 'remote.git');
  const clone = join(top, 'work');
  git(top, 'init', '--quiet', '--bare', '--initial-branch=main', remote);
  mkdirSync(clone);
  git(clone, 'init', '--quiet', '--initial-branch=main');
  git(clone, 'commit', '--quiet', '--allow-empty', '-m', 'start');
  git(clone, 'remote', 'add', 'origin', remote);
  git(clone, 'push', '--quiet', '-u', 'origin', 'main');
  return { top, remote, clone, git, cleanup: () => rmSync(top, { recursive: true, force: true }) };
}
