import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { privatePaths } from './private-paths.js';
import { LocalContext } from './local-context.js';
import {
  CREDENTIAL_FILES,
  CREDENTIAL_NEEDLE,
  LISTED_IN_CONFIG,
  LISTED_IN_HOME,
  writeCredentialHome,
} from './testing/credential-home.js';

let home: string;
let context: LocalContext;

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'tether-local-private-')));
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY needle\n');
  mkdirSync(join(home, 'code'));
  writeFileSync(join(home, 'code', 'app.ts'), 'const needle = 1;\n');
  symlinkSync(join(home, '.ssh'), join(home, 'code', 'keys'));
  context = new LocalContext({ privates: privatePaths({ env: {}, home }) });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code);

describe("the host's own computer keeps the private folders a machine keeps", () => {
  it('refuses reading, writing and listing a credential folder inside a session folder', async () => {
    expect(code(await context.readFile(home, '.ssh/id_ed25519', 1000))).toBe('outside-root');
    expect(code(await context.readFile(home, 'code/keys/id_ed25519', 1000))).toBe('outside-root');
    expect(code(await context.writeFile(home, '.ssh/authorized_keys', 'x'))).toBe('outside-root');
    expect(code(await context.listDir(home, '.ssh', 100))).toBe('outside-root');
    expect(code(await context.checkFolder(join(home, '.ssh')))).toBe('outside-root');
    expect(code(await context.readFile(home, 'code/app.ts', 1000))).toBe('ok');
  });

  it('leaves private entries out of listings and searches', async () => {
    const listed = await context.listDir(home, '.', 100);
    expect(listed.ok && listed.value.entries.map((e) => e.name)).toEqual(['code']);
    for (const regex of [false, true]) {
      const found = await context.search(home, { pattern: 'needle', regex, caseSensitive: true, maxResults: 100 });
      expect(found.ok && found.value.hits.map((h) => h.path)).toEqual([join('code', 'app.ts')]);
    }
  });

  it('keeps no private list unless given one', async () => {
    expect(code(await new LocalContext().readFile(home, '.ssh/id_ed25519', 1000))).toBe('ok');
  });
});

describe("the host's own computer keeps credential files, and other names for them", () => {
  let base: string;
  let h: string;
  let local: LocalContext;
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-local-creds-')));
    h = join(base, 'home');
    writeCredentialHome(h, { hardLinks: true });
    local = new LocalContext({ privates: privatePaths({ env: {}, home: h }) });
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it.each(CREDENTIAL_FILES)('refuses reading and writing %s', async (file) => {
    expect(code(await local.readFile(h, file, 10_000))).toBe('outside-root');
    expect(code(await local.writeFile(h, file, 'replaced'))).toBe('outside-root');
    expect(code(await local.realPath(h, file))).toBe('outside-root');
    expect(readFileSync(join(h, file), 'utf8')).toContain(CREDENTIAL_NEEDLE);
  });

  it('refuses a hard link to the private key or to a credential file, whatever its name', async () => {
    for (const [root, path] of [
      [h, 'code/notes.txt'],
      [join(h, 'code'), 'notes.txt'],
      [join(h, 'code'), 'config.txt'],
    ] as const) {
      expect(code(await local.readFile(root, path, 10_000))).toBe('outside-root');
      expect(code(await local.writeFile(root, path, 'ssh-ed25519 AAAA attacker'))).toBe('outside-root');
    }
    expect(readFileSync(join(h, '.ssh', 'id_ed25519'), 'utf8')).toContain(CREDENTIAL_NEEDLE);
    expect(code(await local.readFile(join(h, 'code'), 'app.ts', 10_000))).toBe('ok');
  });

  it('refuses a hard link made after the list was read', async () => {
    writeFileSync(join(h, '.ssh', 'id_rsa'), `${CREDENTIAL_NEEDLE} made later\n`);
    expect(code(await local.readFile(join(h, 'code'), 'notes.txt', 10_000))).toBe('outside-root');
    linkSync(join(h, '.ssh', 'id_rsa'), join(h, 'code', 'later.txt'));
    expect(code(await local.readFile(join(h, 'code'), 'later.txt', 10_000))).toBe('outside-root');
  });

  it('leaves credential files and hard links to them out of listings and searches', async () => {
    const names = async (root: string, path = '.') => {
      const listed = await local.listDir(root, path, 1000);
      return listed.ok ? listed.value.entries.map((e) => e.name) : ['failed'];
    };
    expect(await names(h)).toEqual(LISTED_IN_HOME);
    expect(await names(h, '.config')).toEqual(LISTED_IN_CONFIG);
    expect(await names(join(h, 'code'))).toEqual(['app.ts']);
    for (const regex of [false, true]) {
      for (const root of [h, join(h, 'code')]) {
        const found = await local.search(root, {
          pattern: CREDENTIAL_NEEDLE,
          regex,
          caseSensitive: true,
          maxResults: 100,
        });
        expect(found.ok && found.value.hits.map((hit) => join(root, hit.path))).toEqual([join(h, 'code', 'app.ts')]);
      }
    }
  });
});
