import type { CodedError, Result } from '@tether/shared-protocol';
import { failWith, ok } from '@tether/shared-protocol';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';

/**
 * Writes a file that holds secrets: created 0600 under a temporary name, synced, then renamed
 * into place, so a crash never leaves a half-written key and nobody else can ever read it.
 */
export function writeSecretFile(path: string, contents: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, contents);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/** The file's text, or why not: `not-found` when there is no such file (a first start). */
export type SecretRead = Result<string, CodedError<'not-found' | 'forbidden'>>;

/** Reads a secret file; refuses one that others can read, rather than use a key that leaked. */
export function readSecretFile(path: string): SecretRead {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return failWith('not-found', `${path} does not exist`);
  }
  if ((mode & 0o077) !== 0) {
    return failWith(
      'forbidden',
      `${path} is readable by others (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
    );
  }
  return ok(readFileSync(path, 'utf8'));
}
