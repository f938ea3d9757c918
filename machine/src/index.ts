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
  SearchError,
  SearchFound,
  SearchHit,
  SearchQuery,
} from './execution-context.js';
export { displayPath } from './confine.js';
export type { LocalContextOptions } from './local-context.js';
export { LocalContext } from './local-context.js';
export { REGEX_TIME_LIMIT_MS } from './regex-search.js';
