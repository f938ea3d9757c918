import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { AppEncoding, AppFile } from '@tether/shared-protocol';
import { APP_ENCODINGS, APP_ENCODING_SUFFIX as SUFFIX, APP_FILE_TYPES } from '@tether/shared-protocol';

/** Where the built app is, next to this package: `<repo>/pwa/dist`. */
export const DEFAULT_APP_DIR = fileURLToPath(new URL('../../../pwa/dist', import.meta.url));

/** Bytes of app files held in memory at most (the built app is well under 1 MB). */
const MAX_APP_BYTES = 32 * 1024 * 1024;

const DECOMPRESS: Record<AppEncoding, (body: Uint8Array, maxOutputLength: number) => Uint8Array> = {
  br: (body, maxOutputLength) => brotliDecompressSync(body, { maxOutputLength }),
  gzip: (body, maxOutputLength) => gunzipSync(body, { maxOutputLength }),
};

/**
 * The app's files, read once into memory at start. Serving from a fixed map means no request path
 * ever reaches the file system: there is nothing to traverse.
 *
 * `x.br` and `x.gz` next to `x` are not files of their own but its precompressed forms (see
 * `pwa/scripts/precompress.ts`). Each is kept only if it is smaller and opens to exactly the bytes
 * of `x`: a stale or damaged one is left out, and `x` goes out uncompressed instead.
 */
export function loadAppFiles(dir: string): Map<string, AppFile> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const raw = new Map<string, Uint8Array>();
  let total = 0;
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) {
        total += stat.size;
        if (total > MAX_APP_BYTES) throw new Error(`the app in ${dir} is larger than ${MAX_APP_BYTES} bytes`);
        raw.set(`/${relative(dir, path).split(sep).join('/')}`, readFileSync(path));
      }
    }
  };
  walk(dir);
  const isVariant = (path: string) =>
    APP_ENCODINGS.some((e) => path.endsWith(SUFFIX[e]) && raw.has(path.slice(0, -SUFFIX[e].length)));
  const files = new Map<string, AppFile>();
  for (const [path, body] of raw) {
    if (isVariant(path)) continue;
    const file: AppFile = {
      body,
      type: APP_FILE_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
      immutable: path.startsWith('/assets/'),
    };
    for (const encoding of APP_ENCODINGS) {
      const variant = raw.get(`${path}${SUFFIX[encoding]}`);
      if (variant && variant.length < body.length && opensTo(encoding, variant, body)) {
        (file.encoded ??= {})[encoding] = variant;
      }
    }
    files.set(path, file);
  }
  return files;
}

function opensTo(encoding: AppEncoding, variant: Uint8Array, original: Uint8Array): boolean {
  try {
    // One byte more than the original is enough to tell a longer result apart, and bounds the work.
    return Buffer.from(DECOMPRESS[encoding](variant, original.length + 1)).equals(original);
  } catch {
    return false;
  }
}
