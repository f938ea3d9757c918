// A regular-expression search, run in a worker thread so that a pattern that backtracks for ever
// holds up only this thread, which regex-search.ts terminates at its time limit.
import { parentPort, workerData } from 'node:worker_threads';
import type { RegexSearchJob } from './regex-search.js';
import { regexMatcher, searchFiles } from './search-files.js';

const job = workerData as RegexSearchJob;
const matcher = regexMatcher(job.pattern, job.caseSensitive);
const result = matcher.ok
  ? await searchFiles(job.root, job.start, matcher.value, job.maxResults, job.exclude, job.budgetMs)
  : matcher;
parentPort!.postMessage(result);
