import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalContext } from './local-context.js';
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

  it('never waits past its bound: a file linked since the last walk is unknown until a walk answers', async () => {
    const files = new PrivateFiles(privates(), Date.now, 0);
    expect(await files.identify(statSync(join(home, 'code', 'notes.txt')))).toBe('unknown');
    const context = new LocalContext({ privates: privates(), privateFiles: files });
    const read = await context.readFile(join(home, 'code'), 'a.txt', 100);
    expect(read.ok ? read.value.text : read.error.message).toMatch(/still being checked: try again in a moment/);
    // The walk it started goes on, and answers the next lookup.
    await files.refresh();
    expect(await files.identify(statSync(join(home, 'code', 'notes.txt')))).toBe('private');
  });

  it('shares one walk between lookups made at once', async () => {
    const files = new PrivateFiles(privates(), () => 0);
    const stats = ['notes.txt', 'npm.txt', 'a.txt'].map((name) => statSync(join(home, 'code', name)));
    expect(await Promise.all(stats.map((s) => files.isPrivate(s)))).toEqual([true, true, false]);
    expect(files.walks).toBe(1);
  });
});

/**
 * The walk that found hard links gave up after 20,000 entries: with a large browser profile or
 * `~/.kube/cache` walked first, a hard link to `.netrc` or to the host's key file in the session
 * folder was read without asking. No count of entries may decide it.
 */
describe('a hard link to a private file behind more entries than any budget', () => {
  /** `count` entries in `dir`: names of one empty file (a link is one system call; a new file three). */
  function fill(dir: string, count: number): void {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'e0'), '');
    for (let i = 1; i < count; i++) linkSync(join(dir, 'e0'), join(dir, `e${i}`));
  }

  it('is refused, whatever the private folders and the session folder hold', async () => {
    const data = join(home, 'tether-data');
    mkdirSync(data);
    writeFileSync(join(data, 'host-key.json'), '{"boxSecretKey":"SECRET"}');
    writeFileSync(join(home, '.netrc'), 'machine example.com password SECRET');
    // More entries than the old budget, walked before `.netrc` and the data dir.
    fill(join(home, '.kube', 'cache'), 20_001);
    // A session folder of as many entries, with the two links among them.
    fill(join(home, 'code', 'vendor'), 20_001);
    // Named to come first, so that a search (which reads at most 20,000 files) reaches them.
    linkSync(join(home, '.netrc'), join(home, 'code', 'vendor', '0-netrc.txt'));
    linkSync(join(data, 'host-key.json'), join(home, 'code', 'vendor', '0-key.txt'));
    const privates = privatePaths({ home, env: {}, extra: [data] });
    // A loaded machine walks slowly: wait for the answer, so that it is the walk's, not `unknown`.
    const context = new LocalContext({ privates, privateFiles: new PrivateFiles(privates, Date.now, 100_000) });
    for (const name of ['0-netrc.txt', '0-key.txt']) {
      const read = await context.readFile(join(home, 'code'), `vendor/${name}`, 10_000);
      expect(read.ok ? read.value.text : read.error.message, name).toMatch(
        /another name \(a hard link\) for a private file/,
      );
    }
    const found = await context.search(join(home, 'code'), {
      pattern: 'SECRET',
      regex: false,
      caseSensitive: true,
      maxResults: 10,
    });
    expect(found.ok && found.value.hits).toEqual([]);
    // An ordinary file with two names there still reads.
    const ordinary = await context.readFile(join(home, 'code'), 'b.txt', 100);
    expect(ordinary.ok && ordinary.value.text).toBe('a');
  }, 120_000);
});
