import { LocalContext } from '@tether/machine';
import type { Result } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveSession } from './archive-session.js';
import type { TestRepo } from './git-test-repo.js';
import { TEST_GIT_ENV, makeTestRepo } from './git-test-repo.js';
import { Worktrees } from './worktrees.js';

let repo: TestRepo;
let sessions: Map<string, { place: string; cwd: string; archived: boolean }>;
let notes: { id: string; text: string }[];

function worktrees(): Worktrees {
  const context = new LocalContext({ env: TEST_GIT_ENV });
  return new Worktrees({
    session: (id) => sessions.get(id),
    contexts: (place) => (place === 'local' ? context : undefined),
    note: (id, _level, text) => notes.push({ id, text }),
  });
}

const archiver = {
  archive: (id: string, archived: boolean): Result<Record<string, never>> => {
    sessions.get(id)!.archived = archived;
    return ok({});
  },
};

async function startIn(w: Worktrees, cwd: string) {
  return w.create(true, { cwd, text: 'hi' }, (input) => {
    sessions.set('s1', { place: 'local', cwd: input.cwd, archived: false });
    return Promise.resolve(ok({ id: 's1', cwd: input.cwd }));
  });
}

beforeEach(() => {
  repo = makeTestRepo();
  sessions = new Map();
  notes = [];
});
afterEach(() => repo.cleanup());

describe('sessions in worktrees, against the real git', () => {
  it('starts a session in a new worktree on a new branch beside the repository', async () => {
    const started = await startIn(worktrees(), repo.clone);
    expect(started.ok).toBe(true);
    const cwd = sessions.get('s1')!.cwd;
    expect(cwd).toMatch(new RegExp(`^${repo.top}/\\.tether-worktrees/work-[0-9a-f]{8}$`));
    const branch = repo.git(cwd, 'branch', '--show-current').trim();
    expect(branch).toBe(`tether/${cwd.slice(-8)}`);
    expect(notes).toEqual([
      {
        id: 's1',
        text: `$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false worktree add --quiet -b ${branch} -- ${cwd} HEAD`,
      },
    ]);
  });

  it('keeps the subfolder the session was started in', async () => {
    mkdirSync(join(repo.clone, 'pkg'));
    writeFileSync(join(repo.clone, 'pkg', 'x'), 'x');
    repo.git(repo.clone, 'add', '.');
    repo.git(repo.clone, 'commit', '--quiet', '-m', 'pkg');
    await startIn(worktrees(), join(repo.clone, 'pkg'));
    expect(sessions.get('s1')!.cwd).toMatch(/\/\.tether-worktrees\/work-[0-9a-f]{8}\/pkg$/);
  });

  it('refuses a folder that is not a git repository, and starts nothing', async () => {
    const plain = join(repo.top, 'plain');
    mkdirSync(plain);
    const started = await startIn(worktrees(), plain);
    expect(!started.ok && started.error).toMatchObject({ code: 'unsupported' });
    expect(!started.ok && started.error.message).toContain('is not in a git repository');
    expect(sessions.size).toBe(0);
  });

  it('leaves no worktree or branch behind when the session could not start', async () => {
    const w = worktrees();
    const started = await w.create(true, { cwd: repo.clone, text: 'hi' }, () =>
      Promise.resolve({ ok: false as const, error: { code: 'invalid-params' as const, message: 'no' } }),
    );
    expect(started.ok).toBe(false);
    expect(repo.git(repo.clone, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(repo.git(repo.clone, 'branch', '--list', 'tether/*')).toBe('');
  });

  it('archiving removes a clean worktree and keeps its branch and commits', async () => {
    const w = worktrees();
    await startIn(w, repo.clone);
    const cwd = sessions.get('s1')!.cwd;
    writeFileSync(join(cwd, 'done.txt'), 'done\n');
    repo.git(cwd, 'add', 'done.txt');
    repo.git(cwd, 'commit', '--quiet', '-m', 'done');
    const archived = await archiveSession(archiver, w, { id: 's1', removeWorktree: true });
    expect(archived.ok).toBe(true);
    expect(existsSync(cwd)).toBe(false);
    expect(sessions.get('s1')!.archived).toBe(true);
    expect(repo.git(repo.clone, 'log', '--format=%s', `tether/${cwd.slice(-8)}`)).toBe('done\nstart\n');
    expect(notes.at(-1)?.text).toBe(
      `$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false worktree remove -- ${cwd}`,
    );
  });

  it('refuses to remove a worktree with uncommitted work, archives nothing, and names the files', async () => {
    const w = worktrees();
    await startIn(w, repo.clone);
    const cwd = sessions.get('s1')!.cwd;
    writeFileSync(join(cwd, 'wip.txt'), 'unsaved\n');
    const refused = await archiveSession(archiver, w, { id: 's1', removeWorktree: true });
    expect(!refused.ok && refused.error.code).toBe('conflict');
    expect(!refused.ok && refused.error.message).toContain('?? wip.txt');
    expect(existsSync(join(cwd, 'wip.txt'))).toBe(true);
    expect(sessions.get('s1')!.archived).toBe(false);
    const forced = await archiveSession(archiver, w, { id: 's1', removeWorktree: true, force: true });
    expect(forced.ok).toBe(true);
    expect(existsSync(cwd)).toBe(false);
  });

  it('never removes a folder that is not a worktree Tether made', async () => {
    sessions.set('s1', { place: 'local', cwd: repo.clone, archived: false });
    const refused = await archiveSession(archiver, worktrees(), { id: 's1', removeWorktree: true });
    expect(!refused.ok && refused.error.code).toBe('invalid-params');
    expect(existsSync(join(repo.clone, '.git'))).toBe(true);
    expect(sessions.get('s1')!.archived).toBe(false);
  });
});
