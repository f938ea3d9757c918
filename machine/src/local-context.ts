import { mkdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { ExecError, FsErrorCode, Result } from '@tether/shared-protocol';
import { execFail, ok } from '@tether/shared-protocol';
import type {
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
import type { OpenGuard } from './agent/confined-files.js';
import { readConfined, writeConfined } from './agent/confined-files.js';
import { PrivateFiles } from './agent/private-files.js';
import { isPrivatePath } from './agent/private-paths.js';
import { listFolder } from './list-folder.js';
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
   * credential folders and files, Tether's data), as a machine keeps them from its host. None by
   * default.
   */
  privates?: readonly string[];
  /** The same files under other names; made from `privates` unless given (to share one index). */
  privateFiles?: PrivateFiles;
  /** This computer's home folder, as a real path: see ExecutionContext.home. */
  home?: string;
}

/** This computer. */
export class LocalContext implements ExecutionContext {
  readonly place = 'local';
  readonly home: string | undefined;
  private readonly regexTimeLimitMs: number;
  private readonly env: NodeJS.ProcessEnv;
  private readonly privates: readonly string[];
  private readonly privateFiles: PrivateFiles;
  private liveProcesses = 0;

  constructor(options: LocalContextOptions = {}) {
    this.regexTimeLimitMs = options.regexTimeLimitMs ?? REGEX_TIME_LIMIT_MS;
    this.env = options.env ?? process.env;
    this.privates = options.privates ?? [];
    this.privateFiles = options.privateFiles ?? new PrivateFiles(this.privates);
    this.home = options.home;
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
    return readConfined(resolved.value, path, maxBytes, await this.guard(root));
  }

  /** Refuses a private path like every other file operation (and like a machine's `fs.realPath`). */
  realPath(root: string, path: string): Promise<Result<string, FsError>> {
    return this.inside(root, path);
  }

  async writeFile(root: string, path: string, text: string): Promise<Result<FileWritten, FsError>> {
    const resolved = await this.inside(root, path);
    if (!resolved.ok) return resolved;
    try {
      // Missing folders are made: they lie inside the root, since the path was resolved into it.
      await mkdir(dirname(resolved.value), { recursive: true });
    } catch (error) {
      return ioError(path, error);
    }
    return writeConfined(resolved.value, path, text, await this.guard(root));
  }

  async listDir(root: string, path: string, maxEntries: number): Promise<Result<DirListing, FsError>> {
    const resolved = await this.inside(root, path);
    if (!resolved.ok) return resolved;
    try {
      return ok(await listFolder(resolved.value, maxEntries, this.privates, this.privateFiles));
    } catch (error) {
      return ioError(path, error);
    }
  }

  async search(root: string, query: SearchQuery): Promise<Result<SearchFound, SearchError>> {
    const start = await this.inside(root, query.path ?? '.');
    if (!start.ok) return start;
    const rootReal = await this.inside(root, '.');
    if (!rootReal.ok) return rootReal;
    const exclude = { privates: this.privates, privateKeys: await this.privateFiles.keys() };
    const found = query.regex
      ? await searchWithRegex(
          {
            root: rootReal.value,
            start: start.value,
            pattern: query.pattern,
            caseSensitive: query.caseSensitive,
            maxResults: query.maxResults,
            exclude,
          },
          this.regexTimeLimitMs,
        )
      : // Plain text matching is linear in the input: it stays on this thread.
        await searchFiles(
          rootReal.value,
          start.value,
          textMatcher(query.pattern, query.caseSensitive),
          query.maxResults,
          exclude,
        );
    if (!found.ok || this.privates.length === 0) return found;
    // The walk never enters a private path; this holds the answer to the same rule.
    const hits = found.value.hits.filter((hit) => !isPrivatePath(join(rootReal.value, hit.path), this.privates));
    return ok({ ...found.value, hits });
  }

  /** `path` resolved by real path inside `root`, and not private. */
  private async inside(root: string, path: string): Promise<Result<string, ExecError<FsErrorCode>>> {
    const resolved = await resolveInside(root, path);
    if (!resolved.ok || !isPrivatePath(resolved.value, this.privates)) return resolved;
    return execFail('outside-root', `${path} is private (credentials or Tether's data)`);
  }

  /** What a file opened inside `root` is checked against, once open. */
  private async guard(root: string): Promise<OpenGuard> {
    const rootReal = await realpath(root).catch(() => root);
    const prefix = rootReal.endsWith(sep) ? rootReal : rootReal + sep;
    return {
      allowed: (real) => (real === rootReal || real.startsWith(prefix)) && !isPrivatePath(real, this.privates),
      privateFiles: this.privateFiles,
    };
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
