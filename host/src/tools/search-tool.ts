import * as v from 'valibot';
import { parseInput } from './parse-input.js';
import type { Tool } from './tool.js';
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
  approval: () => Promise.resolve({ need: null }),
  async run(input, context) {
    const found = await context.exec.search(context.cwd, {
      pattern: input.pattern,
      regex: input.regex ?? false,
      caseSensitive: input.case_sensitive ?? false,
      ...(input.path !== undefined ? { path: input.path } : {}),
      maxResults: input.max_results ?? MAX_RESULTS,
    });
    if (!found.ok) return failedOutcome(found.error);
    const { hits, truncated, filesScanned } = found.value;
    const lines = hits.map((h) => `${h.path}:${h.line}: ${h.text}`);
    lines.push(
      `(${hits.length} match${hits.length === 1 ? '' : 'es'} in ${filesScanned} files scanned${truncated ? '; stopped early, narrow the search' : ''})`,
    );
    return { ok: true, output: lines.join('\n'), truncated };
  },
};
