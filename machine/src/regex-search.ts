import type { Result } from '@tether/shared-protocol';
import { execFail } from '@tether/shared-protocol';
import type { SearchError } from './execution-context.js';
import type { SearchExclusions, SearchScan } from './search-files.js';
import { SEARCH_TIME_BUDGET_MS, regexMatcher } from './search-files.js';
import { startWorker } from './start-worker.js';

/**
 * Milliseconds a regular-expression search may run before its worker thread is terminated. Above
 * the walk's own budget (SEARCH_TIME_BUDGET_MS, checked between files), so a search that is merely
 * large still ends with what it found; only a match that does not end by itself runs into this.
 */
export const REGEX_TIME_LIMIT_MS = 15_000;
/** Regex searches that may run at once, each on a thread of its own; one more is refused with `busy`. */
export const MAX_REGEX_SEARCHES = 4;
/** Heap of a search thread, in MiB: it holds one file at a time (at most 1 MiB) and its hits. */
const WORKER_HEAP_MB = 64;

/** What the search thread is given (structured-cloned to it). */
export interface RegexSearchJob {
  root: string;
  start: string;
  pattern: string;
  caseSensitive: boolean;
  maxResults: number;
  /** What the walk never opens (private paths, and private files under other names). */
  exclude: SearchExclusions;
  /** The walk's budget: two thirds of the time limit, at most SEARCH_TIME_BUDGET_MS. */
  budgetMs: number;
}

let running = 0;

/**
 * Runs a regular-expression search on a worker thread and terminates it at `limitMs`, so that a
 * hostile pattern (`^(a+)+$` on a long run of `a`) cannot hold up this thread: a regex match
 * cannot be interrupted from inside, only its thread stopped. A plain-text search needs none of
 * this: it is linear in its input.
 */
export async function searchWithRegex(
  job: Omit<RegexSearchJob, 'budgetMs'>,
  limitMs: number,
): Promise<Result<SearchScan, SearchError>> {
  // Compiled here too: a malformed pattern is answered without starting a thread.
  const compiled = regexMatcher(job.pattern, job.caseSensitive);
  if (!compiled.ok) return compiled;
  if (running >= MAX_REGEX_SEARCHES) {
    return execFail('busy', `${MAX_REGEX_SEARCHES} regular-expression searches are running already; try again`);
  }
  running++;
  const budgetMs = Math.min(SEARCH_TIME_BUDGET_MS, Math.floor((limitMs * 2) / 3));
  const worker = startWorker('search-worker', { ...job, budgetMs }, { maxOldGenerationSizeMb: WORKER_HEAP_MB });
  try {
    return await new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve(
          execFail(
            'timeout',
            `the regular expression took too long: the search was stopped after ${limitMs / 1000} s; use a simpler pattern or a plain-text search`,
          ),
        );
      }, limitMs);
      const settle = (result: Result<SearchScan, SearchError>) => {
        clearTimeout(timer);
        resolve(result);
      };
      worker.once('message', (result: Result<SearchScan, SearchError>) => settle(result));
      worker.once('error', (error) => settle(execFail('io', `the search failed: ${error.message}`)));
      worker.once('exit', (code) => settle(execFail('io', `the search thread ended (${code}) without an answer`)));
    });
  } finally {
    running--;
    await worker.terminate();
  }
}
