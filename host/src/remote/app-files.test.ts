import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAppFiles } from './app-files.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tether-app-files-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html>app');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const script = Buffer.from('export const words = ["approve", "deny", "session"];\n'.repeat(100));

describe('loadAppFiles', () => {
  it('is undefined when the app is not built', () => {
    rmSync(join(dir, 'index.html'));
    expect(loadAppFiles(dir)).toBeUndefined();
  });

  it('takes `x.br` and `x.gz` as the compressed forms of `x`, not as files of their own', () => {
    const js = join(dir, 'assets', 'app-abc.js');
    writeFileSync(js, script);
    writeFileSync(`${js}.br`, brotliCompressSync(script));
    writeFileSync(`${js}.gz`, gzipSync(script));
    const files = loadAppFiles(dir)!;
    expect([...files.keys()].sort()).toEqual(['/assets/app-abc.js', '/index.html']);
    const file = files.get('/assets/app-abc.js')!;
    expect(file).toMatchObject({ type: 'text/javascript; charset=utf-8', immutable: true });
    expect(Buffer.from(file.encoded!.br!)).toEqual(brotliCompressSync(script));
    expect(Buffer.from(file.encoded!.gzip!)).toEqual(gzipSync(script));
    expect(files.get('/index.html')!.encoded).toBeUndefined();
  });

  it('leaves out a compressed form that does not open to the file (stale, damaged, or larger)', () => {
    const js = join(dir, 'assets', 'app-abc.js');
    writeFileSync(js, script);
    // Stale: the compressed form of an earlier build of the file.
    writeFileSync(`${js}.br`, brotliCompressSync(Buffer.concat([script, Buffer.from('// old')])));
    writeFileSync(`${js}.gz`, Buffer.from('not gzip at all'));
    const css = join(dir, 'assets', 'app.css');
    writeFileSync(css, 'a{}');
    writeFileSync(`${css}.gz`, gzipSync('a{}'));
    const files = loadAppFiles(dir)!;
    expect(files.get('/assets/app-abc.js')!.encoded).toBeUndefined();
    expect(files.get('/assets/app.css')!.encoded).toBeUndefined();
    expect(files.has('/assets/app-abc.js.br')).toBe(false);
    expect(files.has('/assets/app.css.gz')).toBe(false);
  });

  it('serves a `.gz` file that has no original as a file of its own', () => {
    writeFileSync(join(dir, 'logs.tar.gz'), gzipSync('x'));
    expect(loadAppFiles(dir)!.get('/logs.tar.gz')!.type).toBe('application/octet-stream');
  });
});
