// The execution package's API: what the host (and, over a link, a machine) runs tools with.
export type {
  DirEntryInfo,
  ExecRequest,
  ExecResult,
  ExecutionContext,
  FsErrorCode,
  FsResult,
  SearchHit,
  SearchQuery,
} from './execution-context.js';
export { displayPath } from './confine.js';
export { LocalContext } from './local-context.js';
