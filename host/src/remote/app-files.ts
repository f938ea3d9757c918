import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the built app is, next to this package: `<repo>/pwa/dist`. */
export const DEFAULT_APP_DIR = fileURLToPath(new URL('../../../pwa/dist', import.meta.url));

/** Bytes of app files held in memory at most (the built app is well under 1 MB). */
const MAX_APP_BYTES = 32 * 1024 * 1024;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

export interface AppFile {
  body: Uint8Array;
  type: string;
  /** Named by content hash (Vite's `assets/`): cacheable for good. */
  immutable: boolean;
}

/**
 * The app's files, read once into memory at start. Serving from a fixed map means no request path
 * ever reaches the file system: there is nothing to traverse.
 */
export function loadAppFiles(dir: string): Map<string, AppFile> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const files = new Map<string, AppFile>();
  let total = 0;
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) {
        total += stat.size;
        if (total > MAX_APP_BYTES) throw new Error(`the app in ${dir} is larger than ${MAX_APP_BYTES} bytes`);
        const rel = relative(dir, path).split(sep).join('/');
        files.set(`/${rel}`, {
          body: readFileSync(path),
          type: TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream',
          immutable: rel.startsWith('assets/'),
        });
      }
    }
  };
  walk(dir);
  return files;
}
