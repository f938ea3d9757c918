import type { Dirent } from 'node:fs';
import { constants } from 'node:fs';
import { open, opendir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
// Types only from shared-protocol: this file also runs on the regex search's worker thread, which
// starts for every search and should not load the whole protocol package to build two objects.
import type { ExecError, Result } from '@tether/shared-protocol';
import type { SearchFound, SearchHit } from './execution-context.js';
import { CTIME_SLACK_MS, fileKey } from './private-files.js';
import { isPrivatePath } from './private-paths.js';

/** Folders never searched: version control internals and installed dependencies. */
const SKIP = new Set(['.git', 'node_modules', '.hg', '.svn']);
/** Files larger than this (bytes) are skipped: logs and bundles, not source. */
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 20_000;
/** Characters of a matching line kept in a hit. */
const MAX_LINE = 400;
/** Characters of a line a pattern is matched against: a minified bundle's one line stops there. */
const MAX_MATCHED_LINE = 10_000;
/**
 * Milliseconds a search may walk before it stops with what it found, checked between files.
 * A single costly match is not interrupted by it: that is what the regex worker's limit is for.
 */
export const SEARCH_TIME_BUDGET_MS = 10_000;

export type LineMatcher = (line: string) => boolean;

/**
 * What a search never opens: the private paths (never walked into), and the private files under
 * other names, as fileKey strings (a PrivateIndex's keys), checked on each opened file's
 * descriptor; a file with several names that changed since `linkedSince` (the index's start, ms)
 * is unknown to them and not read either. Plain data, so that it can be handed to a search thread.
 */
export interface SearchExclusions {
  privates: readonly string[];
  privateKeys: readonly string[];
  linkedSince: number;
}

export const NO_EXCLUSIONS: SearchExclusions = {
  privates: [],
  privateKeys: [],
  linkedSince: Number.POSITIVE_INFINITY,
};

/** A search's answer, and how many files with several names it left unread as unknown. */
export type SearchScan = SearchFound & { unknownLinks: number };

/** A plain-text matcher: a substring, optionally ignoring case. Linear in the line's length. */
export function textMatcher(pattern: string, caseSensitive: boolean): LineMatcher {
  if (caseSensitive) return (line) => line.includes(pattern);
  const needle = pattern.toLowerCase();
  return (line) => line.toLowerCase().includes(needle);
}

/** A regular expression's matcher, or why the pattern is not one. */
export function regexMatcher(
  pattern: string,
  caseSensitive: boolean,
): Result<LineMatcher, ExecError<'invalid-params'>> {
  try {
    const re = new RegExp(pattern, caseSensitive ? '' : 'i');
    return { ok: true, value: (line) => re.test(line) };
  } catch (error) {
    const message = `invalid regular expression: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, error: { code: 'invalid-params', message } };
  }
}

/** Searches the text files under `start` (a folder or a file inside `root`) line by line. */
export async function searchFiles(
  root: string,
  start: string,
  matches: LineMatcher,
  maxResults: number,
  exclude: SearchExclusions = NO_EXCLUSIONS,
  budgetMs = SEARCH_TIME_BUDGET_MS,
): Promise<Result<SearchScan, ExecError<'not-found'>>> {
  const hits: SearchHit[] = [];
  const privateKeys = new Set(exclude.privateKeys);
  let unknownLinks = 0;
  const deadline = Date.now() + budgetMs;
  let filesScanned = 0;
  let truncated = false;
  const startInfo = await stat(start).catch(() => undefined);
  if (!startInfo)
    return { ok: false, error: { code: 'not-found', message: `${relative(root, start) || '.'} does not exist` } };
  const stack = startInfo.isFile() ? [] : [start];

  const scan = async (file: string) => {
    filesScanned++;
    const bytes = await readText(file, privateKeys, exclude.linkedSince);
    if (bytes === 'unknown') unknownLinks++;
    if (!bytes || bytes === 'unknown' || bytes.subarray(0, 8192).includes(0)) return;
    const lines = bytes.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!matches(line.length > MAX_MATCHED_LINE ? line.slice(0, MAX_MATCHED_LINE) : line)) continue;
      if (hits.length >= maxResults) {
        truncated = true;
        return;
      }
      hits.push({
        path: relative(root, file),
        line: i + 1,
        text: line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line,
      });
    }
  };

  if (startInfo.isFile()) await scan(start);
  while (stack.length > 0 && !truncated) {
    if (filesScanned >= MAX_FILES || Date.now() > deadline) {
      truncated = true;
      break;
    }
    const dir = stack.pop()!;
    const entries: Dirent[] = [];
    try {
      const handle = await opendir(dir);
      for await (const entry of handle) entries.push(entry);
    } catch {
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (truncated) break;
      const path = join(dir, entry.name);
      if (isPrivatePath(path, exclude.privates)) continue;
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name)) stack.push(path);
      } else if (entry.isFile()) {
        await scan(path);
      }
    }
  }
  return { ok: true, value: { hits, truncated, filesScanned, unknownLinks } };
}

/**
 * The bytes of `file`, opened without following a symlink: undefined when it cannot be read, is
 * over MAX_FILE_BYTES, or is (by its descriptor's device and inode) one of `privateKeys`;
 * `unknown` when it has several names and changed since `linkedSince`.
 */
async function readText(
  file: string,
  privateKeys: ReadonlySet<string>,
  linkedSince: number,
): Promise<Buffer | 'unknown' | undefined> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => undefined,
  );
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return undefined;
    if (info.nlink > 1 && privateKeys.has(fileKey(info))) return undefined;
    if (info.nlink > 1 && info.ctimeMs >= linkedSince - CTIME_SLACK_MS) return 'unknown';
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
