import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveInside } from './confine.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-confine-')));
  dirs.push(dir);
  return dir;
}

describe('resolveInside', () => {
  it('resolves a path in the session folder, and one not made yet', async () => {
    const root = folder();
    mkdirSync(join(root, 'src'));
    expect(await resolveInside(root, 'src')).toEqual({ ok: true, value: join(root, 'src') });
    expect(await resolveInside(root, 'src/new/file.ts')).toEqual({ ok: true, value: join(root, 'src/new/file.ts') });
  });

  it('refuses a path outside it, a sibling that shares its name as a prefix, and a link out', async () => {
    const base = folder();
    const root = join(base, 'repo');
    mkdirSync(root);
    mkdirSync(join(base, 'repo-other'));
    symlinkSync(base, join(root, 'up'));
    for (const requested of ['../outside', join(base, 'repo-other'), 'up/repo-other']) {
      const result = await resolveInside(root, requested);
      expect(result.ok ? result.value : result.error.code).toBe('outside-root');
    }
  });

  it('takes every absolute path as inside when the session folder is the filesystem root', async () => {
    const root = folder();
    expect(await resolveInside('/', root)).toEqual({ ok: true, value: root });
    expect(await resolveInside('/', 'tmp')).toEqual({ ok: true, value: realpathSync('/tmp') });
  });
});
