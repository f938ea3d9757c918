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

export type SecretRead = { ok: true; text: string } | { ok: false; missing: boolean; message: string };

/** Reads a secret file; refuses one that others can read, rather than use a key that leaked. */
export function readSecretFile(path: string): SecretRead {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return { ok: false, missing: true, message: `${path} does not exist` };
  }
  if ((mode & 0o077) !== 0) {
    return {
      ok: false,
      missing: false,
      message: `${path} is readable by others (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
    };
  }
  return { ok: true, text: readFileSync(path, 'utf8') };
}
