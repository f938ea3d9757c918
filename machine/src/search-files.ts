import type { Dirent } from 'node:fs';
import { opendir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { FsResult, SearchHit, SearchQuery } from './execution-context.js';
import { fsError } from './execution-context.js';

/** Folders never searched: version control internals and installed dependencies. */
const SKIP = new Set(['.git', 'node_modules', '.hg', '.svn']);
/** Files larger than this (bytes) are skipped: logs and bundles, not source. */
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 20_000;
/** Characters of a matching line kept in a hit. */
const MAX_LINE = 400;
/** Milliseconds a search may take before it stops with what it found (bounds a costly regex). */
const TIME_BUDGET_MS = 10_000;

/** Plain-text or regex search of text files under `start`, which lies inside `root`. */
export async function searchFiles(
  root: string,
  start: string,
  query: SearchQuery,
): Promise<FsResult<{ hits: SearchHit[]; truncated: boolean; filesScanned: number }>> {
  let matcher: (line: string) => boolean;
  if (query.regex) {
    let re: RegExp;
    try {
      re = new RegExp(query.pattern, query.caseSensitive ? '' : 'i');
    } catch (error) {
      return fsError('io', `invalid regular expression: ${error instanceof Error ? error.message : String(error)}`);
    }
    matcher = (line) => re.test(line);
  } else {
    const needle = query.caseSensitive ? query.pattern : query.pattern.toLowerCase();
    matcher = query.caseSensitive ? (line) => line.includes(needle) : (line) => line.toLowerCase().includes(needle);
  }
  const hits: SearchHit[] = [];
  const deadline = Date.now() + TIME_BUDGET_MS;
  let filesScanned = 0;
  let truncated = false;
  const stack = [start];
  const startInfo = await stat(start).catch(() => undefined);
  if (!startInfo) return fsError('not-found', `${relative(root, start) || '.'} does not exist`);
  const files: string[] = startInfo.isFile() ? [start] : [];
  if (startInfo.isFile()) stack.pop();

  const scan = async (file: string) => {
    filesScanned++;
    const info = await stat(file).catch(() => undefined);
    if (!info || info.size > MAX_FILE_BYTES) return;
    const bytes = await readFile(file).catch(() => undefined);
    if (!bytes || bytes.subarray(0, 8192).includes(0)) return;
    const lines = bytes.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!matcher(line.length > 10_000 ? line.slice(0, 10_000) : line)) continue;
      if (hits.length >= query.maxResults) {
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

  for (const file of files) await scan(file);
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
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name)) stack.push(path);
      } else if (entry.isFile()) {
        await scan(path);
      }
    }
  }
  return { ok: true, value: { hits, truncated, filesScanned } };
}
