import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import type { AppFile } from '@tether/shared-protocol';
import { loadAppFolder } from '@tether/shared-protocol';

/** The built app in this repository: `<repo>/pwa/dist` (from `relay/src` or `relay/dist` alike). */
export const DEFAULT_APP_DIR = fileURLToPath(new URL('../../pwa/dist', import.meta.url));

/**
 * The app's files, read once into memory at start, with their precompressed forms (see
 * `loadAppFolder`). Undefined when the folder holds no `index.html` (the app is not built); an
 * error string when it is too large.
 */
export function loadAppFiles(dir: string): Map<string, AppFile> | undefined | string {
  try {
    return loadAppFolder(dir, { fs, zlib });
  } catch (error) {
    return (error as Error).message;
  }
}
