/**
 * Where a session's tools act: this computer (LocalContext) or, later, a machine that lends its
 * shell and files over a link. The agent loop sees only this interface. Every file operation
 * names the root it is confined to (the session's folder); the context enforces it by real path.
 */

export interface ExecRequest {
  command: string;
  cwd: string;
  /** Milliseconds before the command's whole process group is killed. */
  timeoutMs: number;
  /** Bytes of combined output kept: the first and last halves, with the middle dropped. */
  maxOutputBytes: number;
  signal: AbortSignal;
}

export interface ExecResult {
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

export type FsErrorCode = 'outside-root' | 'not-found' | 'not-a-file' | 'not-a-folder' | 'too-large' | 'binary' | 'io';

export type FsResult<T> = { ok: true; value: T } | { ok: false; code: FsErrorCode; message: string };

export interface DirEntryInfo {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
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

export interface ExecutionContext {
  /** `local`, or the machine's name. */
  readonly place: string;
  exec(request: ExecRequest): Promise<ExecResult>;
  /** The folder's real path when it exists and is a folder. */
  checkFolder(path: string): Promise<FsResult<string>>;
  readFile(root: string, path: string, maxBytes: number): Promise<FsResult<{ text: string; size: number }>>;
  writeFile(root: string, path: string, text: string): Promise<FsResult<{ created: boolean; path: string }>>;
  listDir(
    root: string,
    path: string,
    maxEntries: number,
  ): Promise<FsResult<{ entries: DirEntryInfo[]; truncated: boolean }>>;
  search(
    root: string,
    query: SearchQuery,
  ): Promise<FsResult<{ hits: SearchHit[]; truncated: boolean; filesScanned: number }>>;
}

export function fsError(code: FsErrorCode, message: string): { ok: false; code: FsErrorCode; message: string } {
  return { ok: false, code, message };
}
