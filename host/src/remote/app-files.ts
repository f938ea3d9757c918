import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import type { AppFile } from '@tether/shared-protocol';
import { loadAppFolder } from '@tether/shared-protocol';

/** Where the built app is, next to this package: `<repo>/pwa/dist`. */
export const DEFAULT_APP_DIR = fileURLToPath(new URL('../../../pwa/dist', import.meta.url));

/** The app's files, read once into memory at start (see `loadAppFolder`). */
export function loadAppFiles(dir: string): Map<string, AppFile> | undefined {
  return loadAppFolder(dir, { fs, zlib });
}
