import type { Result } from '@tether/shared-protocol';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalContext } from './local-context.js';

let base: string;
let root: string;
const context = new LocalContext();

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'tether-ctx-'));
  root = join(base, 'project');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1;\n// TODO: more\n');
  writeFileSync(join(base, 'secret.txt'), 'outside');
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

const code = (r: Result<unknown, { code: string }>) => (r.ok ? 'ok' : r.error.code);

describe('LocalContext confinement', () => {
  it('reads and writes inside the folder', async () => {
    expect(code(await context.readFile(root, 'src/a.ts', 1000))).toBe('ok');
    const written = await context.writeFile(root, 'src/new/../b.ts', 'b');
    expect(written.ok && written.value.created).toBe(true);
    expect(readFileSync(join(root, 'src', 'b.ts'), 'utf8')).toBe('b');
  });

  it('refuses .., absolute paths and symlinks that lead out', async () => {
    expect(code(await context.readFile(root, '../secret.txt', 1000))).toBe('outside-root');
    expect(code(await context.readFile(root, join(base, 'secret.txt'), 1000))).toBe('outside-root');
    symlinkSync(join(base, 'secret.txt'), join(root, 'link.txt'));
    expect(code(await context.readFile(root, 'link.txt', 1000))).toBe('outside-root');
    symlinkSync(base, join(root, 'up'));
    expect(code(await context.writeFile(root, 'up/evil.txt', 'x'))).toBe('outside-root');
    expect(code(await context.listDir(root, 'up', 10))).toBe('outside-root');
  });

  it('refuses writing through a dangling symlink', async () => {
    symlinkSync(join(base, 'not-yet.txt'), join(root, 'dangling.txt'));
    expect(code(await context.writeFile(root, 'dangling.txt', 'x'))).toBe('outside-root');
  });

  it('allows symlinks that stay inside', async () => {
    symlinkSync(join(root, 'src'), join(root, 'source'));
    expect(code(await context.readFile(root, 'source/a.ts', 1000))).toBe('ok');
  });

  it('says what is wrong with a read', async () => {
    expect(code(await context.readFile(root, 'missing.txt', 1000))).toBe('not-found');
    expect(code(await context.readFile(root, 'src', 1000))).toBe('not-a-file');
    expect(code(await context.readFile(root, 'src/a.ts', 5))).toBe('too-large');
    writeFileSync(join(root, 'bin'), Buffer.from([1, 0, 2]));
    expect(code(await context.readFile(root, 'bin', 1000))).toBe('binary');
  });

  it('lists and searches', async () => {
    const listed = await context.listDir(root, '.', 100);
    expect(listed.ok && listed.value.entries.map((e) => e.name)).toEqual(['src']);
    mkdirSync(join(root, 'node_modules'));
    writeFileSync(join(root, 'node_modules', 'x.js'), '// TODO: ignored');
    const found = await context.search(root, { pattern: 'todo', regex: false, caseSensitive: false, maxResults: 10 });
    expect(found.ok && found.value.hits).toEqual([{ path: 'src/a.ts', line: 2, text: '// TODO: more' }]);
    const regex = await context.search(root, {
      pattern: 'const \\w+ =',
      regex: true,
      caseSensitive: true,
      maxResults: 10,
    });
    expect(regex.ok && regex.value.hits.length).toBe(1);
    const bad = await context.search(root, { pattern: '(', regex: true, caseSensitive: true, maxResults: 10 });
    expect(code(bad)).toBe('invalid-params');
    expect(
      code(await context.search(root, { pattern: 'x', regex: false, caseSensitive: true, path: '..', maxResults: 10 })),
    ).toBe('outside-root');
  });

  it('checks a session folder', async () => {
    expect(code(await context.checkFolder(root))).toBe('ok');
    expect(code(await context.checkFolder(join(root, 'src', 'a.ts')))).toBe('not-a-folder');
    expect(code(await context.checkFolder(join(base, 'nope')))).toBe('not-found');
  });
});
