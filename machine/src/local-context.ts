import type { Dirent } from 'node:fs';
import { mkdir, opendir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import type { DirListing as FolderListing, ExecError, FsErrorCode, Result } from '@tether/shared-protocol';
import { execFail, ok } from '@tether/shared-protocol';
import type {
  DirListing,
  ExecOutcome,
  ExecRequest,
  ExecRunError,
  ExecutionContext,
  FileText,
  ReadOptions,
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
import type { FileStat, OpenGuard } from './confined-files.js';
import { readConfined, readConfinedBytes, statConfined, writeConfined } from './confined-files.js';

/** A text file's bytes as read, before decoding. */
export interface FileBytes {
  body: Uint8Array;
  size: number;
}
import { PrivateFiles } from './private-files.js';
import { isPrivatePath } from './private-paths.js';
import { listFolder } from './list-folder.js';
import { commandEnvironment } from './process-group.js';
import { runProcess } from './run-process.js';
import { searchFiles, textMatcher } from './search-files.js';
import { REGEX_TIME_LIMIT_MS, searchWithRegex } from './regex-search.js';
import { checkLaunch, startProcess } from './spawn-process.js';

/** Processes started with `spawn` that may run at once; one more is refused with `busy`. */
export const MAX_LIVE_PROCESSES = 64;

/** Folders one `listDirs` answer lists; a bigger folder says `truncated`. */
export const MAX_LISTED_DIRS = 500;

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
  /**
   * The folders this computer shares, as real paths (a machine's roots, the host's `--root`s).
   * When given, every folder the context works in (a root of a file operation, a working folder)
   * must lie inside one of them or is refused with `outside-root`, and `listDirs` starts from them.
   */
  roots?: readonly string[];
  /** Test seam: runs between a file's confinement check and its open, with the path opened. */
  beforeOpen?: (path: string) => Promise<void>;
}

/**
 * This computer, and the one implementation of the file operations: the host's own sessions, a
 * machine serving its link (confined to its shared roots) and the app's folder picker all use it.
 * Every path is resolved by real path inside its root and outside every private path; files are
 * then opened so that a folder or file swapped for a link after that check, or a hard link to a
 * private file, is refused (confined-files.ts).
 */
export class LocalContext implements ExecutionContext {
  readonly place = 'local';
  readonly home: string | undefined;
  private readonly regexTimeLimitMs: number;
  private readonly env: NodeJS.ProcessEnv;
  readonly privates: readonly string[];
  private readonly privateFiles: PrivateFiles;
  private readonly roots: readonly string[] | undefined;
  private readonly beforeOpen: ((path: string) => Promise<void>) | undefined;
  private liveProcesses = 0;

  constructor(options: LocalContextOptions = {}) {
    this.regexTimeLimitMs = options.regexTimeLimitMs ?? REGEX_TIME_LIMIT_MS;
    this.env = options.env ?? process.env;
    this.privates = options.privates ?? [];
    this.privateFiles = options.privateFiles ?? new PrivateFiles(this.privates);
    this.home = options.home;
    this.roots = options.roots;
    this.beforeOpen = options.beforeOpen;
  }

  async exec(request: ExecRequest): Promise<Result<ExecOutcome, ExecRunError>> {
    const folder = await this.checkFolder(request.cwd);
    if (!folder.ok) {
      const { code, message } = folder.error;
      return execFail(code === 'not-a-folder' || code === 'io' ? code : 'not-found', message);
    }
    return runProcess(request, this.env);
  }

  /** `exec` in a folder the caller has just had from `checkFolder` (a machine's `exec.run` checks
   * first, so that a folder outside the roots says `outside-root`): the folder is not checked twice. */
  execChecked(request: ExecRequest): Promise<Result<ExecOutcome, ExecRunError>> {
    return runProcess(request, this.env);
  }

  async spawn(request: SpawnRequest): Promise<Result<ProcessHandle, SpawnError>> {
    const launch = checkLaunch(request.command, request.env);
    if (!launch.ok) return launch;
    const cwd =
      request.root === undefined
        ? await this.checkFolder(request.cwd)
        : await this.checkFolderIn(request.root, request.cwd);
    if (!cwd.ok) return cwd;
    if (this.liveProcesses >= MAX_LIVE_PROCESSES) {
      return execFail('busy', `${MAX_LIVE_PROCESSES} processes are running already`);
    }
    this.liveProcesses++;
    const env = { ...commandEnvironment(this.env), ...request.env };
    return startProcess(launch.value, cwd.value, env, () => this.liveProcesses--);
  }

  async checkFolder(path: string): Promise<Result<string, FsError>> {
    if (this.roots === undefined) return this.folderIn(path, '.', path);
    if (!isAbsolute(path)) return execFail('outside-root', `${path} is not an absolute path`);
    let real: string;
    try {
      real = await realpath(path);
    } catch (error) {
      return ioError(path, error);
    }
    if (!(await this.shared(real)) || isPrivatePath(real, this.privates)) return this.refusal(path);
    return this.folderIn(real, '.', path);
  }

  /** `path` resolved inside `root` (relative to it, or absolute), when it is a folder. */
  async checkFolderIn(root: string, path: string): Promise<Result<string, FsError>> {
    const folder = await this.rootFolder(root);
    return folder.ok ? this.folderIn(folder.value, path) : folder;
  }

  async readFile(
    root: string,
    path: string,
    maxBytes: number,
    options: ReadOptions = {},
  ): Promise<Result<FileText, FsError>> {
    const resolved = await this.inside(root, path);
    if (!resolved.ok) return resolved;
    return readConfined(resolved.value, path, maxBytes, await this.guard(root), options.head === true);
  }

  /** A text file's bytes, undecoded (a machine's `fs.read`: the host decodes them). */
  async readFileBytes(
    root: string,
    path: string,
    maxBytes: number,
    options: ReadOptions = {},
  ): Promise<Result<FileBytes, FsError>> {
    const resolved = await this.inside(root, path);
    if (!resolved.ok) return resolved;
    return readConfinedBytes(resolved.value, path, maxBytes, await this.guard(root), options.head === true);
  }

  /** What the file or folder is, from the very one opened (see statConfined). */
  async stat(root: string, path: string): Promise<Result<FileStat, FsError>> {
    const resolved = await this.inside(root, path);
    if (!resolved.ok) return resolved;
    return statConfined(resolved.value, path, await this.guard(root));
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
    const index = await this.privateFiles.current();
    const exclude = {
      privates: this.privates,
      privateKeys: index ? [...index.keys] : [],
      // Without an index in time, no file with several names is read.
      linkedSince: index?.startedAt ?? Number.NEGATIVE_INFINITY,
    };
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
    if (!found.ok) return found;
    const { unknownLinks, ...scan } = found.value;
    // Files given another name since the last walk were left unread: the next search knows them.
    if (unknownLinks > 0) this.privateFiles.refresh().catch(() => undefined);
    if (this.privates.length === 0) return ok(scan);
    // The walk never enters a private path; this holds the answer to the same rule.
    const hits = scan.hits.filter((hit) => !isPrivatePath(join(rootReal.value, hit.path), this.privates));
    return ok({ ...scan, hits });
  }

  /**
   * Folders to pick a session's folder from: without `path`, the shared roots themselves; with
   * one, the folders in it (a folder inside the roots). Private folders and symlinks are left out:
   * only real folders are offered. A context without roots offers none.
   */
  async listDirs(path?: string): Promise<Result<FolderListing, FsError>> {
    const roots = await this.realRoots();
    if (path === undefined) {
      const dirs = roots.map((root) => ({ name: basename(root) || root, path: root }));
      return ok({ path: null, parent: null, dirs, truncated: false });
    }
    const folder = await this.rootFolder(path);
    if (!folder.ok) return folder;
    const real = folder.value;
    const dirs: Dirent[] = [];
    try {
      for await (const entry of await opendir(real)) {
        // Dirent does not follow symlinks: a link to a folder elsewhere is not offered.
        if (entry.isDirectory() && !isPrivatePath(join(real, entry.name), this.privates)) dirs.push(entry);
      }
    } catch (error) {
      return ioError(path, error);
    }
    dirs.sort(
      (a, b) => Number(a.name.startsWith('.')) - Number(b.name.startsWith('.')) || a.name.localeCompare(b.name),
    );
    return ok({
      path: real,
      parent: roots.includes(real) ? null : dirname(real),
      dirs: dirs.slice(0, MAX_LISTED_DIRS).map((d) => ({ name: d.name, path: join(real, d.name) })),
      truncated: dirs.length > MAX_LISTED_DIRS,
    });
  }

  /** `path` resolved by real path inside `root` (itself inside the shared roots, if any), and not private. */
  private async inside(root: string, path: string): Promise<Result<string, FsError>> {
    const folder = await this.rootFolder(root);
    return folder.ok ? this.resolveConfined(folder.value, path) : folder;
  }

  /** `path` resolved by real path inside the folder `root`, and not private. */
  private async resolveConfined(root: string, path: string): Promise<Result<string, ExecError<FsErrorCode>>> {
    const resolved = await resolveInside(root, path);
    if (!resolved.ok || !isPrivatePath(resolved.value, this.privates)) return resolved;
    return execFail('outside-root', `${path} is private (credentials or Tether's data)`);
  }

  /** The folder a file operation is confined to: as given, or checked against the shared roots. */
  private async rootFolder(root: string): Promise<Result<string, FsError>> {
    return this.roots === undefined ? ok(root) : this.checkFolder(root);
  }

  /** Whether a real path lies in one of the shared roots. */
  private async shared(real: string): Promise<boolean> {
    const roots = await this.realRoots();
    return roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep));
  }

  /** The shared roots that exist, by real path (a host's may be given through links), private ones left out. */
  private async realRoots(): Promise<string[]> {
    const reals: string[] = [];
    for (const root of this.roots ?? []) {
      const real = await realpath(root).catch(() => undefined);
      if (real !== undefined && !isPrivatePath(real, this.privates)) reals.push(real);
    }
    return reals;
  }

  private refusal(path: string): { ok: false; error: ExecError<'outside-root'> } {
    return execFail('outside-root', `${path} is outside the shared folders (${(this.roots ?? []).join(', ')})`);
  }

  /** What a file opened inside `root` is checked against, once open. */
  private async guard(root: string): Promise<OpenGuard> {
    const rootReal = await realpath(root).catch(() => root);
    const prefix = rootReal.endsWith(sep) ? rootReal : rootReal + sep;
    return {
      allowed: (real) => (real === rootReal || real.startsWith(prefix)) && !isPrivatePath(real, this.privates),
      privateFiles: this.privateFiles,
      beforeOpen: this.beforeOpen,
    };
  }

  /** `path` resolved inside `root`, when it is a folder; `label` names it in errors. */
  private async folderIn(root: string, path: string, label = path): Promise<Result<string, ExecError<FsErrorCode>>> {
    const resolved = await this.resolveConfined(root, path);
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
