import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { privatePaths } from './agent/private-folders.js';
import { LocalContext } from './local-context.js';

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
