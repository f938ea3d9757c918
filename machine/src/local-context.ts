import { constants } from 'node:fs';
import { mkdir, open, opendir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ExecError, FsErrorCode, Result } from '@tether/shared-protocol';
import { execFail, ok } from '@tether/shared-protocol';
import type {
  DirEntryInfo,
  DirListing,
  ExecOutcome,
  ExecRequest,
  ExecRunError,
  ExecutionContext,
  FileText,
  FileWritten,
  FsError,
  ProcessHandle,
  SearchError,
  SearchFound,
  SearchQuery,
  SpawnError,
  SpawnRequest,
} from './execution-context.js';
import { resolveInside } from './confine.js';
import { isPrivatePath } from './agent/private-folders.js';
import { commandEnvironment } from './process-group.js';
import { runProcess } from './run-process.js';
import { searchFiles, textMatcher } from './search-files.js';
import { REGEX_TIME_LIMIT_MS, searchWithRegex } from './regex-search.js';
import { checkLaunch, startProcess } from './spawn-process.js';

/** Processes started with `spawn` that may run at once; one more is refused with `busy`. */
export const MAX_LIVE_PROCESSES = 64;

export interface LocalContextOptions {
  /** See REGEX_TIME_LIMIT_MS; tests make it short. */
  regexTimeLimitMs?: number;
  /** The environment commands start from (before the host's credentials are taken out). */
  env?: NodeJS.ProcessEnv;
  /**
   * Real paths file operations never reach, even inside a session's folder (`privatePaths()`:
   * credential folders, Tether's data), as a machine keeps them from its host. None by default.
   */
  privates?: readonly string[];
}

/** This computer. */
export class LocalContext implements ExecutionContext {
  readonly place = 'local';
  private readonly regexTimeLimitMs: number;
  private readonly env: NodeJS.ProcessEnv;
  private readonly privates: readonly string[];
  private liveProcesses = 0;

  constructor(options: LocalContextOptions = {}) {
    this.regexTimeLimitMs = options.regexTimeLimitMs ?? REGEX_TIME_LIMIT_MS;
    this.env = options.env ?? process.env;
    this.privates = options.privates ?? [];
  }

  async exec(request: ExecRequest): Promise<Result<ExecOutcome, ExecRunError>> {
    const folder = await this.checkFolder(request.cwd);
    if (!folder.ok) {
      const { code, message } = folder.error;
      return execFail(code === 'not-a-folder' || code === 'io' ? code : 'not-found', message);
    }
    return runProcess(request, this.env);
  }

  async spawn(request: SpawnRequest): Promise<Result<ProcessHandle, SpawnError>> {
    const launch = checkLaunch(request.command, request.env);
    if (!launch.ok) return launch;
    const cwd =
      request.root === undefined ? await this.checkFolder(request.cwd) : await this.folderIn(request.root, request.cwd);
    if (!cwd.ok) return cwd;
    if (this.liveProcesses >= MAX_LIVE_PROCESSES) {
      return execFail('busy', `${MAX_LIVE_PROCESSES} processes are running already`);
    }
    this.liveProcesses++;
    const env = { ...commandEnvironment(this.env), ...request.env };
    return startProcess(launch.value, cwd.value, env, () => this.liveProcesses--);
  }

  checkFolder(path: string): Promise<Result<string, FsError>> {
    return this.folderIn(path, '.', path);
  }

  async readFile(root: string, path: string, maxBytes: number): Promise<Result<FileText, FsError>> {
    const resolved = await this.inside(root, path);
    if (!resolved.ok) return resolved;
    try {
      const info = await stat(resolved.value);
      if (!info.isFile()) return execFail('not-a-file', `${path} is not a file`);
      if (info.size > maxBytes) {
        return execFail('too-large', `${path} is ${info.size} bytes; the limit is ${maxBytes}`);
      }
      const bytes = await readFile(resolved.value);
      if (bytes.subarray(0, 8192).includes(0)) return execFail('binary', `${path} looks like a binary file`);
      return ok({ text: bytes.toString('utf8'), size: info.size });
    } catch (error) {
      return ioError(path, error);
    }
  }

  realPath(root: string, path: string): Promise<Result<string, FsError>> {
    // Like every file operation (and a machine's): a private folder inside the root is refused.
    return this.inside(root, path);
  }

  async writeFile(root: string, path: string, text: string): Promise<Result<FileWritten, FsError>> {
    const resolved = await this.inside(root, path);
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
      return ok({ created, path: resolved.value });
    } catch (error) {
      return ioError(path, error);
    }
  }

  async listDir(root: string, path: string, maxEntries: number): Promise<Result<DirListing, FsError>> {
    const resolved = await this.inside(root, path);
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
        if (isPrivatePath(join(resolved.value, entry.name), this.privates)) continue;
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
      return ok({ entries, truncated });
    } catch (error) {
      return ioError(path, error);
    }
  }

  async search(root: string, query: SearchQuery): Promise<Result<SearchFound, SearchError>> {
    const start = await this.inside(root, query.path ?? '.');
    if (!start.ok) return start;
    const rootReal = await this.inside(root, '.');
    if (!rootReal.ok) return rootReal;
    const found = query.regex
      ? await searchWithRegex(
          {
            root: rootReal.value,
            start: start.value,
            pattern: query.pattern,
            caseSensitive: query.caseSensitive,
            maxResults: query.maxResults,
          },
          this.regexTimeLimitMs,
        )
      : // Plain text matching is linear in the input: it stays on this thread.
        await searchFiles(
          rootReal.value,
          start.value,
          textMatcher(query.pattern, query.caseSensitive),
          query.maxResults,
        );
    if (!found.ok || this.privates.length === 0) return found;
    // A private folder inside the root is walked but never answered from.
    const hits = found.value.hits.filter((hit) => !isPrivatePath(join(rootReal.value, hit.path), this.privates));
    return ok({ ...found.value, hits });
  }

  /** `path` resolved by real path inside `root`, and not private. */
  private async inside(root: string, path: string): Promise<Result<string, ExecError<FsErrorCode>>> {
    const resolved = await resolveInside(root, path);
    if (!resolved.ok || !isPrivatePath(resolved.value, this.privates)) return resolved;
    return execFail('outside-root', `${path} is a private folder (credentials or Tether's data)`);
  }

  /** `path` resolved inside `root`, when it is a folder; `label` names it in errors. */
  private async folderIn(root: string, path: string, label = path): Promise<Result<string, ExecError<FsErrorCode>>> {
    const resolved = await this.inside(root, path);
    if (!resolved.ok) return resolved;
    try {
      const info = await stat(resolved.value);
      return info.isDirectory() ? resolved : execFail('not-a-folder', `${label} is not a folder`);
    } catch (error) {
      return ioError(label, error);
    }
  }
}

function ioError(path: string, error: unknown): { ok: false; error: ExecError<FsErrorCode> } {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return execFail('not-found', `${path} does not exist`);
  if (code === 'ENOTDIR') return execFail('not-a-folder', `${path} is not a folder`);
  return execFail('io', `${path}: ${error instanceof Error ? error.message : String(error)}`);
}
