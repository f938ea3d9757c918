import { constants } from 'node:fs';
import { mkdir, open, opendir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type {
  DirEntryInfo,
  FsErrorCode,
  ExecRequest,
  ExecResult,
  ExecutionContext,
  FsResult,
  SearchQuery,
} from './execution-context.js';
import { fsError } from './execution-context.js';
import { resolveInside } from './confine.js';
import { runProcess } from './run-process.js';
import { searchFiles } from './search-files.js';

/** This computer. */
export class LocalContext implements ExecutionContext {
  readonly place = 'local';

  exec(request: ExecRequest): Promise<ExecResult> {
    return runProcess(request);
  }

  async checkFolder(path: string): Promise<FsResult<string>> {
    const resolved = await resolveInside(path, '.');
    if (!resolved.ok) return resolved;
    const info = await stat(resolved.value);
    return info.isDirectory() ? resolved : fsError('not-a-folder', `${path} is not a folder`);
  }

  async readFile(root: string, path: string, maxBytes: number): Promise<FsResult<{ text: string; size: number }>> {
    const resolved = await resolveInside(root, path);
    if (!resolved.ok) return resolved;
    try {
      const info = await stat(resolved.value);
      if (!info.isFile()) return fsError('not-a-file', `${path} is not a file`);
      if (info.size > maxBytes) return fsError('too-large', `${path} is ${info.size} bytes; the limit is ${maxBytes}`);
      const bytes = await readFile(resolved.value);
      if (bytes.subarray(0, 8192).includes(0)) return fsError('binary', `${path} looks like a binary file`);
      return { ok: true, value: { text: bytes.toString('utf8'), size: info.size } };
    } catch (error) {
      return ioError(path, error);
    }
  }

  async writeFile(root: string, path: string, text: string): Promise<FsResult<{ created: boolean; path: string }>> {
    const resolved = await resolveInside(root, path);
    if (!resolved.ok) return resolved;
    let created = false;
    try {
      await stat(resolved.value);
    } catch {
      created = true;
    }
    try {
      // Missing folders are made: they lie inside the root, since the path was resolved into it.
      await mkdir(dirname(resolved.value), { recursive: true });
      // O_NOFOLLOW: never write through a symlink swapped in after the check above.
      const handle = await open(
        resolved.value,
        constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
        0o644,
      );
      try {
        await handle.writeFile(text, 'utf8');
      } finally {
        await handle.close();
      }
      return { ok: true, value: { created, path: resolved.value } };
    } catch (error) {
      return ioError(path, error);
    }
  }

  async listDir(
    root: string,
    path: string,
    maxEntries: number,
  ): Promise<FsResult<{ entries: DirEntryInfo[]; truncated: boolean }>> {
    const resolved = await resolveInside(root, path);
    if (!resolved.ok) return resolved;
    try {
      const entries: DirEntryInfo[] = [];
      let truncated = false;
      const dir = await opendir(resolved.value);
      for await (const entry of dir) {
        if (entries.length >= maxEntries) {
          truncated = true;
          break;
        }
        const type = entry.isDirectory()
          ? 'dir'
          : entry.isFile()
            ? 'file'
            : entry.isSymbolicLink()
              ? 'symlink'
              : 'other';
        let size = 0;
        if (type === 'file') size = (await stat(`${resolved.value}/${entry.name}`).catch(() => ({ size: 0 }))).size;
        entries.push({ name: entry.name, type, size });
      }
      entries.sort((a, b) =>
        (a.type === 'dir') === (b.type === 'dir') ? a.name.localeCompare(b.name) : a.type === 'dir' ? -1 : 1,
      );
      return { ok: true, value: { entries, truncated } };
    } catch (error) {
      return ioError(path, error);
    }
  }

  async search(
    root: string,
    query: SearchQuery,
  ): Promise<
    FsResult<{ hits: { path: string; line: number; text: string }[]; truncated: boolean; filesScanned: number }>
  > {
    const resolved = await resolveInside(root, query.path ?? '.');
    if (!resolved.ok) return resolved;
    const rootResolved = await resolveInside(root, '.');
    if (!rootResolved.ok) return rootResolved;
    return searchFiles(rootResolved.value, resolved.value, query);
  }
}

function ioError(path: string, error: unknown): { ok: false; code: FsErrorCode; message: string } {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return fsError('not-found', `${path} does not exist`);
  if (code === 'ENOTDIR') return fsError('not-a-folder', `${path} is not a folder`);
  return fsError('io', `${path}: ${error instanceof Error ? error.message : String(error)}`);
}
