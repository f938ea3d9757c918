import type { AppEncoding, AppFile } from './app-files.js';
import { APP_ENCODINGS, APP_ENCODING_SUFFIX as SUFFIX } from './app-files.js';
import { APP_FILE_TYPES } from './app-headers.js';

/**
 * Reading the built app's folder into memory, once, at start, for every server of the app (the
 * host and a relay). This package stays runtime-neutral: the caller hands in Node's own `fs` and
 * `zlib` modules, which fit these shapes as they are.
 */

/** The part of Node's `fs` that reading the folder uses. */
export interface AppFolderFs {
  existsSync(path: string): boolean;
  readdirSync(path: string): string[];
  statSync(path: string): { isDirectory(): boolean; isFile(): boolean; size: number };
  readFileSync(path: string): Uint8Array;
}

/** The part of Node's `zlib` that checks a precompressed form against its original. */
export interface AppFolderZlib {
  brotliDecompressSync(body: Uint8Array, options: { maxOutputLength: number }): Uint8Array;
  gunzipSync(body: Uint8Array, options: { maxOutputLength: number }): Uint8Array;
}

/** Bytes of app files held in memory at most: 32 MiB (the built app is well under 1 MiB). */
export const MAX_APP_BYTES = 32 * 1024 * 1024;

/**
 * The app's files in `dir`, by request path (`/index.html`, `/assets/app-1.js`); undefined when the
 * folder holds no `index.html` (the app is not built). Throws when the files pass `MAX_APP_BYTES`.
 *
 * `x.br` and `x.gz` next to `x` are not files of their own but its precompressed forms (see
 * `pwa/scripts/precompress.ts`). Each is kept only if it is smaller and opens to exactly the bytes
 * of `x`: a stale or damaged one is left out, and `x` goes out uncompressed instead.
 */
export function loadAppFolder(
  dir: string,
  node: { fs: AppFolderFs; zlib: AppFolderZlib },
): Map<string, AppFile> | undefined {
  const { fs } = node;
  if (!fs.existsSync(`${dir}/index.html`)) return undefined;
  const raw = new Map<string, Uint8Array>();
  let total = 0;
  const walk = (folder: string, prefix: string) => {
    for (const name of fs.readdirSync(folder)) {
      const path = `${folder}/${name}`;
      const stat = fs.statSync(path);
      if (stat.isDirectory()) walk(path, `${prefix}${name}/`);
      else if (stat.isFile()) {
        total += stat.size;
        if (total > MAX_APP_BYTES) throw new Error(`the app in ${dir} is larger than ${MAX_APP_BYTES} bytes`);
        raw.set(`${prefix}${name}`, fs.readFileSync(path));
      }
    }
  };
  walk(dir, '/');
  const isVariant = (path: string) =>
    APP_ENCODINGS.some((e) => path.endsWith(SUFFIX[e]) && raw.has(path.slice(0, -SUFFIX[e].length)));
  const files = new Map<string, AppFile>();
  for (const [path, body] of raw) {
    if (isVariant(path)) continue;
    const file: AppFile = { body, type: fileType(path), immutable: path.startsWith('/assets/') };
    for (const encoding of APP_ENCODINGS) {
      const variant = raw.get(`${path}${SUFFIX[encoding]}`);
      if (variant && variant.length < body.length && opensTo(node.zlib, encoding, variant, body)) {
        (file.encoded ??= {})[encoding] = variant;
      }
    }
    files.set(path, file);
  }
  return files;
}

function fileType(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return (dot > 0 && APP_FILE_TYPES[name.slice(dot).toLowerCase()]) || 'application/octet-stream';
}

function opensTo(zlib: AppFolderZlib, encoding: AppEncoding, variant: Uint8Array, original: Uint8Array): boolean {
  // One byte more than the original is enough to tell a longer result apart, and bounds the work.
  const options = { maxOutputLength: original.length + 1 };
  try {
    const opened = encoding === 'br' ? zlib.brotliDecompressSync(variant, options) : zlib.gunzipSync(variant, options);
    return opened.length === original.length && opened.every((byte, i) => byte === original[i]);
  } catch {
    return false;
  }
}
