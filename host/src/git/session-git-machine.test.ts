import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MachineKit } from '../machines/testing/machine-kit.js';
import { machineKit } from '../machines/testing/machine-kit.js';
import type { TestRepo } from './git-test-repo.js';
import { TEST_GIT_ENV, makeTestRepo } from './git-test-repo.js';
import { SessionGit } from './session-git.js';
import { Worktrees } from './worktrees.js';

/**
 * Git for a session on a machine: the same calls, run by the real git on the machine through its
 * link (an in-process machine agent sharing a folder that holds a repository and its bare remote).
 */

let kit: MachineKit | undefined;
let repo: TestRepo;
let notes: string[];

beforeEach(() => {
  // The machine's git runs in this process's environment: a fixed author, none of the user's config.
  for (const key of ['GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_GLOBAL', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL'] as const) {
    vi.stubEnv(key, TEST_GIT_ENV[key]);
  }
  vi.stubEnv('GIT_COMMITTER_NAME', TEST_GIT_ENV.GIT_COMMITTER_NAME);
  vi.stubEnv('GIT_COMMITTER_EMAIL', TEST_GIT_ENV.GIT_COMMITTER_EMAIL);
  repo = makeTestRepo();
  notes = [];
});
afterEach(async () => {
  await kit?.close();
  kit = undefined;
  repo.cleanup();
  vi.unstubAllEnvs();
});

async function onMachine() {
  kit = machineKit();
  const machine = kit.machine({ token: kit.tokens.create('laptop', 0).token, root: repo.top });
  await machine.reached('linked');
  const deps = {
    session: (id: string) => (id === 's1' ? { place: 'laptop', cwd: repo.clone } : undefined),
    contexts: (place: string) => kit!.registry.context(place),
    note: (_id: string, _level: string, text: string) => notes.push(text),
  };
  return { git: new SessionGit(deps), worktrees: new Worktrees(deps) };
}

describe('git for a session on a machine', () => {
  it('stages, commits and pushes there, and the bare remote has the commit', async () => {
    const { git } = await onMachine();
    writeFileSync(join(repo.clone, 'from-phone.txt'), 'hello\n');
    const status = await git.status('s1');
    expect(status.ok && status.value.files.map((f) => f.path)).toEqual(['from-phone.txt']);
    expect((await git.stage('s1', ['from-phone.txt'])).ok).toBe(true);
    expect((await git.commit('s1', 'From the phone')).ok).toBe(true);
    const pushed = await git.push('s1', false);
    expect(pushed.ok).toBe(true);
    expect(repo.git(repo.remote, 'log', '--format=%s', 'main')).toBe('From the phone\nstart\n');
    const ran = '$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false';
    expect(notes).toEqual([
      `${ran} --literal-pathspecs add -- from-phone.txt`,
      `${ran} commit --quiet --no-edit -m 'From the phone'`,
      `${ran} push --porcelain origin HEAD:refs/heads/main`,
    ]);
  });

  it("refuses there too where the repository's own settings name a program", async () => {
    const { git } = await onMachine();
    const marker = join(repo.top, 'ran');
    repo.git(repo.clone, 'config', '--local', 'core.sshCommand', `touch '${marker}'`);
    const status = await git.status('s1');
    expect(status.ok ? 'ran' : status.error.code).toBe('forbidden');
    expect(existsSync(marker)).toBe(false);
  });

  it('adds a worktree there for a new session', async () => {
    const { worktrees } = await onMachine();
    const made = await worktrees.add('laptop', repo.clone, 'abcd1234');
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(existsSync(made.value.folder)).toBe(true);
    expect(repo.git(repo.clone, 'branch', '--list', 'tether/abcd1234')).toContain('tether/abcd1234');
  });
});
