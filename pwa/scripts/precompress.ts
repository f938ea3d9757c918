// Writes `<file>.br` and `<file>.gz` next to each of the built app's text files, once, at build
// time and at maximum quality, so that whoever serves the app (the host) sends compressed bytes
// without compressing on each request or at start. Run by the Vite build (the plugin below).
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/**
 * Files smaller than this many bytes stay as they are: they fit in one TCP segment either way,
 * and the compressed form would save a few bytes at the cost of an `.br` and `.gz` file each.
 */
export const MIN_PRECOMPRESS_BYTES = 1024;

/** Text formats, which compress well. Images (png) and fonts (woff2) are compressed already: never listed. */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.webmanifest', '.svg', '.txt', '.map']);

export interface Precompressed {
  /** Path relative to the folder, with `/`. */
  path: string;
  bytes: number;
  br?: number;
  gzip?: number;
}

/**
 * Precompresses every compressible file of at least `MIN_PRECOMPRESS_BYTES` under `dir`. A
 * variant is kept only when it is smaller than the file. Returns what it wrote.
 */
export function precompress(dir: string): Precompressed[] {
  const done: Precompressed[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      const stat = statSync(path);
      if (stat.isDirectory()) {
        walk(path);
        continue;
      }
      if (!stat.isFile() || stat.size < MIN_PRECOMPRESS_BYTES || !COMPRESSIBLE.has(extname(name).toLowerCase())) {
        continue;
      }
      const body = readFileSync(path);
      const entry: Precompressed = { path: relative(dir, path).split(sep).join('/'), bytes: body.length };
      const br = brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      });
      if (br.length < body.length) {
        writeFileSync(`${path}.br`, br);
        entry.br = br.length;
      }
      const gzip = gzipSync(body, { level: constants.Z_BEST_COMPRESSION, memLevel: 9 });
      if (gzip.length < body.length) {
        writeFileSync(`${path}.gz`, gzip);
        entry.gzip = gzip.length;
      }
      done.push(entry);
    }
  };
  walk(dir);
  return done;
}

/**
 * Precompresses the output folder once everything is written, the service worker included (the
 * PWA plugin writes it in its own `closeBundle`, so this one runs after, in order).
 */
export function precompressPlugin(): Plugin {
  let outDir = '';
  return {
    name: 'tether:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = join(config.root, config.build.outDir);
    },
    closeBundle: {
      order: 'post',
      sequential: true,
      handler() {
        precompress(outDir);
      },
    },
  };
}
