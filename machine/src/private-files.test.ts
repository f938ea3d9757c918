import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PrivateFiles } from './private-files.js';
import { privatePaths } from './private-paths.js';

let home: string;
beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'tether-private-files-')));
  mkdirSync(join(home, '.ssh'));
  mkdirSync(join(home, 'code'));
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'key');
  writeFileSync(join(home, '.npmrc'), 'token');
  linkSync(join(home, '.ssh', 'id_ed25519'), join(home, 'code', 'notes.txt'));
  linkSync(join(home, '.npmrc'), join(home, 'code', 'npm.txt'));
  // Two names for an ordinary file: not private.
  writeFileSync(join(home, 'code', 'a.txt'), 'a');
  linkSync(join(home, 'code', 'a.txt'), join(home, 'code', 'b.txt'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const privates = () => privatePaths({ home, env: {} });

describe('private files under other names', () => {
  it('knows a hard link to a file in a private folder and to a private file, not to an ordinary one', async () => {
    const files = new PrivateFiles(privates());
    expect(await files.isPrivate(statSync(join(home, 'code', 'notes.txt')))).toBe(true);
    expect(await files.isPrivate(statSync(join(home, 'code', 'npm.txt')))).toBe(true);
    expect(await files.isPrivate(statSync(join(home, 'code', 'a.txt')))).toBe(false);
    expect(await new PrivateFiles([]).isPrivate(statSync(join(home, 'code', 'notes.txt')))).toBe(false);
  });

  it('looks up a file with one name, or a folder, without walking', async () => {
    const files = new PrivateFiles(privates());
    writeFileSync(join(home, 'code', 'single.txt'), 's');
    expect(await files.isPrivate(statSync(join(home, 'code', 'single.txt')))).toBe(false);
    expect(await files.isPrivate(statSync(join(home, 'code')))).toBe(false);
    expect(files.walks).toBe(0);
  });

  it('answers from its index for a file whose names did not change since the walk began', async () => {
    // Walks stamped well after every file here was linked.
    const files = new PrivateFiles(privates(), () => Date.now() + 60_000);
    expect(await files.isPrivate(statSync(join(home, 'code', 'a.txt')))).toBe(false);
    expect(await files.isPrivate(statSync(join(home, 'code', 'b.txt')))).toBe(false);
    expect(await files.isPrivate(statSync(join(home, 'code', 'notes.txt')))).toBe(true);
    expect(files.walks).toBe(1);
  });

  it('walks again for a file that got a name since, and so finds a link to a key made since', async () => {
    const files = new PrivateFiles(privates());
    expect(await files.isPrivate(statSync(join(home, 'code', 'a.txt')))).toBe(false);
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'new key');
    linkSync(join(home, '.ssh', 'id_rsa'), join(home, 'code', 'later.txt'));
    expect(await files.isPrivate(statSync(join(home, 'code', 'later.txt')))).toBe(true);
    expect(files.walks).toBe(2);
  });

  it('shares one walk between lookups made at once', async () => {
    const files = new PrivateFiles(privates(), () => 0);
    const stats = ['notes.txt', 'npm.txt', 'a.txt'].map((name) => statSync(join(home, 'code', name)));
    expect(await Promise.all(stats.map((s) => files.isPrivate(s)))).toEqual([true, true, false]);
    expect(files.walks).toBe(1);
  });
});
