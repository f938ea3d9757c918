import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open, readlink, realpath, stat } from 'node:fs/promises';
import type { ExecError, FsErrorCode, Result } from '@tether/shared-protocol';
import { execFail, ok } from '@tether/shared-protocol';
import type { FileIdentity, PrivateFiles } from './private-files.js';

/**
 * File reads and writes that check, after opening, which file they really opened. A path is
 * confined by real path before it is used, but between that check and the open a folder on the
 * way could be swapped for a symlink pointing out (a command running on the machine can do that).
 * So the open never follows a symlink in the last component, the opened file's own path (from
 * the descriptor) must still pass `allowed`, and the opened file itself (fstat of the descriptor)
 * must not be a private file under another name (a hard link); otherwise the file is closed
 * untouched (a write truncates only after these checks) and the operation is refused with
 * `outside-root`. LocalContext is their one user: the host's own computer and every machine.
 */

/** What an opened file is checked against. */
export interface OpenGuard {
  /** Whether the opened file's real path may be used: inside the roots, outside the private paths. */
  allowed: (realPath: string) => boolean;
  privateFiles: PrivateFiles;
  /** Test seam: runs between the confinement check and the open, with the path about to be opened. */
  beforeOpen?: ((path: string) => Promise<void>) | undefined;
}

/**
 * Refuses `file` when it is a private file under another name, or got another name so lately
 * that the private files could not yet be checked for it (PrivateFiles: never read unchecked).
 */
async function checkIdentity(
  file: FileIdentity,
  shown: string,
  privateFiles: PrivateFiles,
): Promise<Result<void, ExecError<'outside-root'>>> {
  const identity = await privateFiles.identify(file);
  if (identity === 'ordinary') return ok(undefined);
  if (identity === 'private') {
    return execFail(
      'outside-root',
      `${shown} is another name (a hard link) for a private file: credentials or Tether's data`,
    );
  }
  return execFail(
    'outside-root',
    `${shown} has several names (hard links), one given since the private files were last checked, and whether it is one of them is still being checked: try again in a moment`,
  );
}

/** Where an open descriptor really points, or undefined when that cannot be told. */
async function openedPath(handle: FileHandle, path: string): Promise<string | undefined> {
  try {
    // Linux: the descriptor's own link names the file it holds, whatever happened to `path`.
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    // Elsewhere: the path's real path now, when it still names the very file that was opened.
    try {
      const [held, now] = await Promise.all([handle.stat(), realpath(path)]);
      const current = await stat(now);
      return held.dev === current.dev && held.ino === current.ino ? now : undefined;
    } catch {
      return undefined;
    }
  }
}

async function checkOpened(
  handle: FileHandle,
  path: string,
  shown: string,
  allowed: (realPath: string) => boolean,
): Promise<Result<void, ExecError<'outside-root'>>> {
  const real = await openedPath(handle, path);
  if (real === undefined || !allowed(real)) {
    return execFail(
      'outside-root',
      `${shown} changed while it was being opened and now leads out of the shared folders`,
    );
  }
  return ok(undefined);
}

function ioError(shown: string, error: unknown): { ok: false; error: ExecError<FsErrorCode> } {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return execFail('not-found', `${shown} does not exist`);
  if (code === 'ENOTDIR') return execFail('not-a-folder', `${shown} is not a folder`);
  if (code === 'ELOOP') return execFail('outside-root', `${shown} is a symlink`);
  if (code === 'EISDIR') return execFail('not-a-file', `${shown} is a folder`);
  return execFail('io', `${shown}: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * What every confined operation checks of the file it opened: it is still where the path says and
 * inside what is allowed, and it is no credential file by another name. Its stat, when it passes.
 */
async function openedStat(
  handle: FileHandle,
  path: string,
  shown: string,
  guard: OpenGuard,
): Promise<Result<Stats, ExecError<FsErrorCode>>> {
  const checked = await checkOpened(handle, path, shown, guard.allowed);
  if (!checked.ok) return checked;
  const info = await handle.stat();
  const same = await checkIdentity(info, shown, guard.privateFiles);
  return same.ok ? ok(info) : same;
}

/** Opens `path` to read without following a last symlink or blocking (a FIFO, a device). */
async function openForReading(
  path: string,
  shown: string,
  guard: OpenGuard,
): Promise<Result<FileHandle, ExecError<FsErrorCode>>> {
  await guard.beforeOpen?.(path);
  try {
    return ok(await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
  } catch (error) {
    return ioError(shown, error);
  }
}

/**
 * `use` of the opened file, once `openedStat` passes it, with its stat; a failure on the way is
 * an error naming `shown`. The file is closed after, whatever happened.
 */
async function useOpened<T>(
  handle: FileHandle,
  path: string,
  shown: string,
  guard: OpenGuard,
  use: (info: Stats) => Promise<Result<T, ExecError<FsErrorCode>>>,
): Promise<Result<T, ExecError<FsErrorCode>>> {
  try {
    const opened = await openedStat(handle, path, shown, guard);
    if (!opened.ok) return opened;
    return await use(opened.value);
  } catch (error) {
    return ioError(shown, error);
  } finally {
    await handle.close();
  }
}

/**
 * Reads the text file at `path` (already confined), at most `maxBytes`; with `head`, the first
 * `maxBytes` of a larger file (never more is read into memory), cut at a whole character.
 */
export async function readConfined(
  path: string,
  shown: string,
  maxBytes: number,
  guard: OpenGuard,
  head = false,
): Promise<Result<{ text: string; size: number }, ExecError<FsErrorCode>>> {
  const read = await readConfinedBytes(path, shown, maxBytes, guard, head);
  return read.ok ? ok({ text: read.value.body.toString('utf8'), size: read.value.size }) : read;
}

/** The bytes of a text file, checked as `readConfined` checks them, not decoded (a machine sends
 * them as they are; the host decodes). A cut (`head`) ends at a whole character. */
export async function readConfinedBytes(
  path: string,
  shown: string,
  maxBytes: number,
  guard: OpenGuard,
  head = false,
): Promise<Result<{ body: Buffer; size: number }, ExecError<FsErrorCode>>> {
  const opened = await openForReading(path, shown, guard);
  if (!opened.ok) return opened;
  const handle = opened.value;
  return useOpened(handle, path, shown, guard, async (info) => {
    if (!info.isFile()) return execFail('not-a-file', `${shown} is not a file`);
    const cut = info.size > maxBytes;
    if (cut && !head) return execFail('too-large', `${shown} is ${info.size} bytes; the limit is ${maxBytes}`);
    const length = Math.min(info.size, maxBytes);
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, 0);
    const read = bytes.subarray(0, bytesRead);
    if (read.subarray(0, 8192).includes(0)) return execFail('binary', `${shown} looks like a binary file`);
    return ok({ body: cut ? wholeCharacters(read) : read, size: cut ? info.size : bytesRead });
  });
}

/** `bytes` without an incomplete UTF-8 sequence at its end (where a cut fell inside a character). */
export function wholeCharacters(bytes: Buffer): Buffer {
  // The last lead byte within the last 4: a sequence needs 2, 3 or 4 bytes by its first one.
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
    const byte = bytes[i]!;
    if ((byte & 0xc0) === 0x80) continue;
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return i + needs > bytes.length ? bytes.subarray(0, i) : bytes;
  }
  return bytes;
}

/** Writes `text` to `path` (already confined; its folder exists), creating or replacing it. */
export async function writeConfined(
  path: string,
  shown: string,
  text: string,
  guard: OpenGuard,
): Promise<Result<{ created: boolean; path: string }, ExecError<FsErrorCode>>> {
  await guard.beforeOpen?.(path);
  let handle: FileHandle;
  let created = true;
  try {
    // Created exclusively when new; an existing file is opened without truncating, so nothing
    // is lost before the check below.
    handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return ioError(shown, error);
    created = false;
    try {
      handle = await open(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (reopen) {
      return ioError(shown, reopen);
    }
  }
  return useOpened(handle, path, shown, guard, async (info) => {
    if (!info.isFile()) return execFail('not-a-file', `${shown} is not a file`);
    await handle.truncate(0);
    await handle.write(text, 0, 'utf8');
    return ok({ created, path });
  });
}

/** What `statConfined` tells of a file or folder. */
export interface FileStat {
  type: 'file' | 'dir' | 'other';
  size: number;
  /** Milliseconds since the epoch. */
  modifiedAt: number;
}

/**
 * Describes the file or folder at `path` (already confined) from a descriptor, checked like a
 * read: what is described is what was opened, inside the root and not a private file under
 * another name. Opened for reading without blocking, so a FIFO or a device is described, not read;
 * what cannot be opened for reading at all (no permission, a socket) answers `io` rather than be
 * described unchecked.
 */
export async function statConfined(
  path: string,
  shown: string,
  guard: OpenGuard,
): Promise<Result<FileStat, ExecError<FsErrorCode>>> {
  const opened = await openForReading(path, shown, guard);
  if (!opened.ok) return opened;
  return useOpened(opened.value, path, shown, guard, (info) => {
    const type = info.isFile() ? 'file' : info.isDirectory() ? 'dir' : 'other';
    return Promise.resolve(ok({ type, size: info.size, modifiedAt: Math.floor(info.mtimeMs) }));
  });
}
