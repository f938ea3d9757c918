// The execution package's API: what the host (and, over a link, a machine) runs tools with.
export type {
  DirEntryInfo,
  DirListing,
  ExecOutcome,
  ExecRequest,
  ExecRunError,
  ExecutionContext,
  FileText,
  FileWritten,
  FsError,
  InputError,
  KillSignal,
  OutputStream,
  ProcessExit,
  ProcessHandle,
  SearchError,
  SearchFound,
  SearchHit,
  SearchQuery,
  SpawnCommand,
  SpawnError,
  SpawnRequest,
} from './execution-context.js';
export { displayPath } from './confine.js';
export type { LocalContextOptions } from './local-context.js';
export { LocalContext, MAX_LIVE_PROCESSES } from './local-context.js';
export { REGEX_TIME_LIMIT_MS } from './regex-search.js';
export { MAX_PENDING_INPUT_BYTES } from './spawn-process.js';
