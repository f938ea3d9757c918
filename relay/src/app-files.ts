import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppFile } from '@tether/shared-protocol';
import { APP_FILE_TYPES } from '@tether/shared-protocol';

/** The built app in this repository: `<repo>/pwa/dist` (from `relay/src` or `relay/dist` alike). */
export const DEFAULT_APP_DIR = fileURLToPath(new URL('../../pwa/dist', import.meta.url));

/** Bytes of app files held in memory at most: 32 MiB (the built app is well under 1 MiB). */
const MAX_APP_BYTES = 32 * 1024 * 1024;

/**
 * Reads the app's files into memory once, at start. Requests are answered from this map, so no
 * request path ever reaches the file system: there is nothing to traverse. Undefined when the
 * directory holds no `index.html` (the app is not built); an error string when it is too large.
 */
export function loadAppFiles(dir: string): Map<string, AppFile> | undefined | string {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const files = new Map<string, AppFile>();
  let total = 0;
  const walk = (folder: string): string | undefined => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stat = statSync(path);
      if (stat.isDirectory()) {
        const error = walk(path);
        if (error) return error;
      } else if (stat.isFile()) {
        total += stat.size;
        if (total > MAX_APP_BYTES) return `the app in ${dir} is larger than ${MAX_APP_BYTES} bytes`;
        const rel = relative(dir, path).split(sep).join('/');
        files.set(`/${rel}`, {
          body: readFileSync(path),
          type: APP_FILE_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream',
          immutable: rel.startsWith('assets/'),
        });
      }
    }
    return undefined;
  };
  return walk(dir) ?? files;
}
