import * as v from 'valibot';
import { homeReadApproval, outsideHiddenHomeEntries } from './home-reads.js';
import { parseInput } from './parse-input.js';
import type { SearchHit } from '@tether/machine';
import type { Tool, ToolContext } from './tool.js';
import { failedOutcome } from './tool.js';

const MAX_RESULTS = 200;

const Input = v.object({
  pattern: v.pipe(v.string(), v.minLength(1), v.maxLength(1000)),
  regex: v.optional(v.boolean()),
  case_sensitive: v.optional(v.boolean()),
  path: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
  max_results: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_RESULTS))),
});

export const searchTool: Tool<v.InferOutput<typeof Input>> = {
  spec: {
    name: 'search',
    description:
      "Search text files in the session's folder for a string (or a regular expression with regex: true). " +
      'Skips .git and node_modules, binary files and files over 1 MiB. Returns path:line: text.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        regex: { type: 'boolean', description: 'Treat pattern as a JavaScript regular expression.' },
        case_sensitive: { type: 'boolean', description: 'Default false.' },
        path: { type: 'string', description: 'Folder or file to search in, relative to the session folder.' },
        max_results: { type: 'integer', description: `Default and most: ${MAX_RESULTS}.` },
      },
      required: ['pattern'],
    },
  },
  parse: (input) => parseInput(Input, input),
  title: (input) => input.pattern,
  approval: (input, context) =>
    homeReadApproval(context, input.path ?? '.', 'Search', ` for ${JSON.stringify(input.pattern)}`),
  async run(input, context) {
    const found = await context.exec.search(context.cwd, {
      pattern: input.pattern,
      regex: input.regex ?? false,
      caseSensitive: input.case_sensitive ?? false,
      ...(input.path !== undefined ? { path: input.path } : {}),
      maxResults: input.max_results ?? MAX_RESULTS,
    });
    if (!found.ok) return failedOutcome(found.error);
    const { truncated, filesScanned } = found.value;
    const { hits, left } = await withoutHiddenHomeEntries(found.value.hits, input.path ?? '.', context);
    const lines = hits.map((h) => `${h.path}:${h.line}: ${h.text}`);
    lines.push(
      `(${hits.length} match${hits.length === 1 ? '' : 'es'} in ${filesScanned} files scanned${truncated ? '; stopped early, narrow the search' : ''})`,
    );
    if (left > 0) {
      lines.push(
        `(${left} match${left === 1 ? '' : 'es'} in hidden entries of the home folder were left out: search such an entry by its path, which asks the person first)`,
      );
    }
    return { ok: true, output: lines.join('\n'), truncated };
  },
};

/** The hits outside hidden entries of the home folder that were not asked about (home-reads.ts). */
async function withoutHiddenHomeEntries(
  hits: SearchHit[],
  path: string,
  context: ToolContext,
): Promise<{ hits: SearchHit[]; left: number }> {
  const home = context.exec.home;
  if (home === undefined) return { hits, left: 0 };
  const [root, start] = await Promise.all([
    context.exec.realPath(context.cwd, '.'),
    context.exec.realPath(context.cwd, path),
  ]);
  // Without the real paths nothing can be told apart: nothing hidden is answered.
  if (!root.ok || !start.ok) return { hits: [], left: hits.length };
  return outsideHiddenHomeEntries(hits, home, root.value, start.value);
}
