import type { ExecError, FsErrorCode, Result } from '@tether/shared-protocol';
import type { FileStat } from './confined-files.js';

/**
 * Where a session's tools act: this computer (LocalContext) or a machine that lends its shell and
 * files over a link. The agent loop and the tools see only this interface. Every file operation
 * names the root it is confined to (the session's folder); the context enforces it by real path.
 *
 * Every method answers with a Result, so a context that cannot reach its place (an offline
 * machine) says `unreachable` instead of throwing. A command that ran and failed is not an error:
 * it is an outcome with its exit code.
 */
export interface ExecutionContext {
  /** `local`, or the machine's name. */
  readonly place: string;
  /**
   * The place's home folder as a real path, when known. A session reading a hidden entry directly
   * in it (`.bashrc`, anything under `.config`) asks the person first: such entries hold settings
   * and, often, credentials that the private list does not name.
   */
  readonly home?: string | undefined;
  /**
   * The real paths this place keeps from every session (privatePaths: credentials, Tether's own
   * data), when it knows them here. An agent whose own tools do not pass through Tether is told
   * to keep away from them (docs/agents.md).
   */
  readonly privates?: readonly string[] | undefined;
  /** Runs a shell command to its end and returns its output, kept head and tail. */
  exec(request: ExecRequest): Promise<Result<ExecOutcome, ExecRunError>>;
  /** Starts a process and streams its input and output (see ProcessHandle). */
  spawn(request: SpawnRequest): Promise<Result<ProcessHandle, SpawnError>>;
  /** The folder's real path when it exists and is a folder. */
  checkFolder(path: string): Promise<Result<string, FsError>>;
  /**
   * Where `path` (relative to `root`) really is: its real path, symlinks followed, confined to
   * the root like every file operation. The path need not exist (its deepest existing folder is
   * resolved). An approval shows it when a write would land elsewhere than its name says.
   */
  realPath(root: string, path: string): Promise<Result<string, FsError>>;
  /**
   * The text file at `path`, at most `maxBytes`: a larger one is `too-large`, or with `head` its
   * first `maxBytes` (cut at a character), `size` then telling the whole file's bytes.
   */
  readFile(root: string, path: string, maxBytes: number, options?: ReadOptions): Promise<Result<FileText, FsError>>;
  writeFile(root: string, path: string, text: string): Promise<Result<FileWritten, FsError>>;
  /**
   * What the file or folder at `path` (relative to `root`) is, confined like a read: `not-found`
   * when it does not exist (yet) inside the root, `outside-root` when it is outside or private.
   */
  stat(root: string, path: string): Promise<Result<FileStat, FsError>>;
  listDir(root: string, path: string, maxEntries: number): Promise<Result<DirListing, FsError>>;
  search(root: string, query: SearchQuery): Promise<Result<SearchFound, SearchError>>;
}

/** A file operation's error. */
export type FsError = ExecError<FsErrorCode | 'unreachable'>;
/** `not-found`/`not-a-folder`: the working folder; `io`: the shell could not be started. */
export type ExecRunError = ExecError<'not-found' | 'not-a-folder' | 'io' | 'unreachable'>;
/** File codes for the working folder; `invalid-params` for a request refused as such; `busy` at the process bound. */
export type SpawnError = ExecError<FsErrorCode | 'invalid-params' | 'busy' | 'unreachable'>;
/** `invalid-params`: a malformed regular expression; `timeout`: one that took too long; `busy`: too many at once. */
export type SearchError = ExecError<FsErrorCode | 'invalid-params' | 'timeout' | 'busy' | 'unreachable'>;
/** `channel-closed`: stdin is closed or the process is gone; `busy`: too much input waits already. */
export type InputError = ExecError<'channel-closed' | 'busy' | 'unreachable'>;

export interface ExecRequest {
  command: string;
  cwd: string;
  /** Milliseconds before the command's whole process group is killed. */
  timeoutMs: number;
  /** Bytes of combined output kept: the first and last halves, with the middle dropped. */
  maxOutputBytes: number;
  signal: AbortSignal;
}

/** How a command that ran ended. */
export interface ExecOutcome {
  /** null when the process was ended by a signal. */
  exitCode: number | null;
  signal: string | null;
  output: string;
  /** Bytes dropped from the middle of the output. */
  droppedBytes: number;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
}

export type SpawnCommand =
  /** A program and its arguments, run without a shell (a bare name is looked up on PATH). */
  | { program: string; args: readonly string[] }
  /** A command line for `/bin/sh -c`. */
  | { shell: string };

export interface SpawnRequest {
  command: SpawnCommand;
  /**
   * The working folder. With `root`, it is resolved inside that root like a file path (relative
   * to it, or absolute), and a folder outside it is refused with `outside-root`. Without, it must
   * be an existing folder, checked like `checkFolder`.
   */
  cwd: string;
  root?: string;
  /** Set in the process's environment on top of the one commands get (which never holds the host's own credentials). */
  env?: Readonly<Record<string, string>>;
}

export type OutputStream = 'stdout' | 'stderr';

/** How a process ended: an exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

export type KillSignal = 'SIGTERM' | 'SIGKILL' | 'SIGINT' | 'SIGHUP';

/**
 * A running process in its own process group. Output is byte chunks, in order within each
 * stream; it starts flowing when the first listener is attached (until then the child blocks on
 * its full pipe, so nothing is lost and nothing piles up), and `pause` stops it again: the
 * operating system's pipe then holds the child back instead of memory growing here. When the
 * process exits, anything it left running in its group is killed, so nothing outlives it.
 */
export interface ProcessHandle {
  /** Delivers output chunks to `listener` until the returned function is called. */
  onOutput(listener: (stream: OutputStream, chunk: Uint8Array) => void): () => void;
  /** Writes to stdin; resolves once the bytes are handed to the pipe (so awaiting it is backpressure). */
  write(data: Uint8Array | string): Promise<Result<void, InputError>>;
  /** Closes stdin: the child reads end of file. */
  closeInput(): void;
  pause(): void;
  resume(): void;
  /** Signals the whole group; SIGTERM (the default) becomes SIGKILL after a grace period. */
  kill(signal?: KillSignal): void;
  /**
   * Resolves when the process has exited and all its output was delivered (so never while the
   * output is paused with bytes left to deliver), or with `unreachable` when the place was lost.
   */
  readonly exited: Promise<Result<ProcessExit, ExecError<'unreachable'>>>;
}

export interface FileText {
  text: string;
  /** The file's bytes; more than the text holds when a `head` read cut it. */
  size: number;
}

export interface ReadOptions {
  /** Read the beginning of a file larger than the limit, rather than refuse it. */
  head?: boolean;
}

export interface FileWritten {
  created: boolean;
  /** The real path written. */
  path: string;
}

export interface DirEntryInfo {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
}

export interface DirListing {
  entries: DirEntryInfo[];
  truncated: boolean;
}

export interface SearchQuery {
  pattern: string;
  /** Treat the pattern as a regular expression instead of plain text. */
  regex: boolean;
  caseSensitive: boolean;
  /** A folder or file under the root to search in; the root when absent. */
  path?: string;
  maxResults: number;
}

export interface SearchHit {
  /** Relative to the root. */
  path: string;
  line: number;
  text: string;
}

export interface SearchFound {
  hits: SearchHit[];
  /** Stopped early: at the result, file or time limit. */
  truncated: boolean;
  filesScanned: number;
}
