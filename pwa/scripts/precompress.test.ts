import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIN_PRECOMPRESS_BYTES, precompress } from './precompress.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tether-precompress-'));
  mkdirSync(join(dir, 'assets'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const script = 'export const words = ["approve", "deny", "session"];\n'.repeat(200);

describe('precompress', () => {
  it('writes brotli and gzip variants that open to the original, for text files', () => {
    writeFileSync(join(dir, 'assets', 'app-abc.js'), script);
    writeFileSync(join(dir, 'index.html'), `<!doctype html>${'<p>Tether</p>'.repeat(200)}`);
    const done = precompress(dir);
    expect(done.map((d) => d.path)).toEqual(['assets/app-abc.js', 'index.html']);
    const js = join(dir, 'assets', 'app-abc.js');
    expect(brotliDecompressSync(readFileSync(`${js}.br`)).toString()).toBe(script);
    expect(gunzipSync(readFileSync(`${js}.gz`)).toString()).toBe(script);
    expect(done[0]!.br).toBeLessThan(done[0]!.gzip!);
    expect(done[0]!.gzip).toBeLessThan(script.length / 10);
  });

  it('leaves tiny files, images and fonts alone', () => {
    writeFileSync(join(dir, 'manifest.webmanifest'), '{"name":"Tether"}');
    writeFileSync(join(dir, 'icon.png'), Buffer.alloc(MIN_PRECOMPRESS_BYTES * 4));
    writeFileSync(join(dir, 'font.woff2'), Buffer.alloc(MIN_PRECOMPRESS_BYTES * 4));
    expect(precompress(dir)).toEqual([]);
    for (const name of ['manifest.webmanifest', 'icon.png', 'font.woff2']) {
      expect(existsSync(join(dir, `${name}.br`))).toBe(false);
      expect(existsSync(join(dir, `${name}.gz`))).toBe(false);
    }
  });

  it('keeps no variant that is not smaller, and never compresses its own output again', () => {
    // Random bytes do not compress: both variants would be larger than the file.
    writeFileSync(join(dir, 'noise.txt'), crypto.getRandomValues(new Uint8Array(4096)));
    writeFileSync(join(dir, 'app.js'), script);
    const first = precompress(dir);
    expect(first.find((d) => d.path === 'noise.txt')).toEqual({ path: 'noise.txt', bytes: 4096 });
    expect(existsSync(join(dir, 'noise.txt.br'))).toBe(false);
    expect(existsSync(join(dir, 'noise.txt.gz'))).toBe(false);
    expect(existsSync(join(dir, 'app.js.br'))).toBe(true);
    expect(precompress(dir).map((d) => d.path)).toEqual(['app.js', 'noise.txt']);
  });
});
