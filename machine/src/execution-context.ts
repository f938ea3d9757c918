import type { ExecError, FsErrorCode, Result } from '@tether/shared-protocol';

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
  /** Runs a shell command to its end and returns its output, kept head and tail. */
  exec(request: ExecRequest): Promise<Result<ExecOutcome, ExecRunError>>;
  /** The folder's real path when it exists and is a folder. */
  checkFolder(path: string): Promise<Result<string, FsError>>;
  readFile(root: string, path: string, maxBytes: number): Promise<Result<FileText, FsError>>;
  writeFile(root: string, path: string, text: string): Promise<Result<FileWritten, FsError>>;
  listDir(root: string, path: string, maxEntries: number): Promise<Result<DirListing, FsError>>;
  search(root: string, query: SearchQuery): Promise<Result<SearchFound, SearchError>>;
}

/** A file operation's error. */
export type FsError = ExecError<FsErrorCode | 'unreachable'>;
/** `not-found`/`not-a-folder`: the working folder; `io`: the shell could not be started. */
export type ExecRunError = ExecError<'not-found' | 'not-a-folder' | 'io' | 'unreachable'>;
/** `invalid-params`: a malformed regular expression; `timeout`: one that took too long; `busy`: too many at once. */
export type SearchError = ExecError<FsErrorCode | 'invalid-params' | 'timeout' | 'busy' | 'unreachable'>;

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

export interface FileText {
  text: string;
  size: number;
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
