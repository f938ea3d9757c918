import { linkSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LinkPeer } from '@tether/shared-protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CREDENTIAL_FILES,
  CREDENTIAL_NEEDLE,
  LISTED_IN_CONFIG,
  LISTED_IN_HOME,
  writeCredentialHome,
} from '../testing/credential-home.js';
import { code, linkTo } from './testing/link-harness.js';
import { MachineExecutor } from './machine-executor.js';
import { privatePaths } from '../private-paths.js';
import { checkSharedRoots } from './shared-roots.js';

// A machine that shares its whole home keeps every credential file from its host, by name and
// by any other name (a hard link), over the wire: a sealed link, the real schemas and executor.

let base: string;
let home: string;
let host: LinkPeer;
let executor: MachineExecutor;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-machine-creds-')));
  home = join(base, 'home');
  writeCredentialHome(home, { hardLinks: true });
  const privates = privatePaths({ home, env: {} });
  const roots = await checkSharedRoots([home], privates);
  if (!roots.ok) throw new Error(roots.error.message);
  executor = new MachineExecutor({ roots: roots.value, privates, tasksDir: join(base, 'tasks') });
  host = (await linkTo(executor)).host;
});

afterEach(async () => {
  await executor.close();
  rmSync(base, { recursive: true, force: true });
});

const call = async (method: string, params: unknown) => code(await host.request(method, params));
const read = (path: string, root = home) => call('fs.read', { root, path, maxBytes: 10_000 });
const write = (path: string, root = home) => call('fs.write', { root, path, text: 'replaced' });
const names = async (root: string) => {
  const listed = await host.request('fs.list', { root, path: '.', maxEntries: 1000 });
  return listed.ok ? (listed.value as { entries: { name: string }[] }).entries.map((e) => e.name) : ['failed'];
};

describe('a machine keeps credential files from its host', () => {
  it.each(CREDENTIAL_FILES)('refuses reading, writing and stat of %s', async (file) => {
    expect(await read(file)).toBe('outside-root');
    expect(await read(join(home, file), join(home, 'code'))).toBe('outside-root');
    expect(await write(file)).toBe('outside-root');
    expect(await call('fs.stat', { root: home, path: file })).toBe('outside-root');
    expect(readFileSync(join(home, file), 'utf8')).toContain(CREDENTIAL_NEEDLE);
  });

  it('refuses a hard link to the private key or a credential file, whatever its name', async () => {
    for (const [root, path] of [
      [home, 'code/notes.txt'],
      [join(home, 'code'), 'notes.txt'],
      [join(home, 'code'), 'config.txt'],
    ] as const) {
      expect(await read(path, root)).toBe('outside-root');
      expect(await write(path, root)).toBe('outside-root');
      expect(await call('fs.stat', { root, path })).toBe('outside-root');
    }
    expect(readFileSync(join(home, '.ssh', 'id_ed25519'), 'utf8')).toContain(CREDENTIAL_NEEDLE);
    expect(await read('code/app.ts')).toBe('ok');
  });

  it('refuses a hard link to a key made after sharing began', async () => {
    writeFileSync(join(home, '.ssh', 'id_rsa'), `${CREDENTIAL_NEEDLE} made later\n`);
    expect(await read('code/notes.txt')).toBe('outside-root');
    linkSync(join(home, '.ssh', 'id_rsa'), join(home, 'code', 'later.txt'));
    expect(await read('code/later.txt')).toBe('outside-root');
  });

  it('leaves credential files and hard links to them out of listings and searches', async () => {
    expect(await names(home)).toEqual(LISTED_IN_HOME);
    expect(await names(join(home, '.config'))).toEqual(LISTED_IN_CONFIG);
    expect(await names(join(home, 'code'))).toEqual(['app.ts']);
    for (const regex of [false, true]) {
      for (const root of [home, join(home, 'code')]) {
        const found = await host.request('fs.search', {
          root,
          query: { pattern: CREDENTIAL_NEEDLE, regex, caseSensitive: true, maxResults: 100 },
        });
        const paths = found.ok ? (found.value as { hits: { path: string }[] }).hits.map((h) => join(root, h.path)) : [];
        expect(paths).toEqual([join(home, 'code', 'app.ts')]);
      }
    }
  });
});
