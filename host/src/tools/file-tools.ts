import type { ExecError, Result } from '@tether/shared-protocol';
import { MAX_ACTION_TEXT, ok } from '@tether/shared-protocol';
import { resolve } from 'node:path';
import * as v from 'valibot';
import { displayPath } from '@tether/machine';
import { homeReadApproval } from './home-reads.js';
import { parseInput } from './parse-input.js';
import type { ApprovalCheck, Tool, ToolContext } from './tool.js';
import { failedOutcome, refusal } from './tool.js';
import { unifiedDiff } from './unified-diff.js';

/** Bytes of a file read_file returns, and the largest file edit_file and write_file touch. */
const MAX_FILE_BYTES = 256 * 1024;
const MAX_LIST_ENTRIES = 1000;

const Path = v.pipe(v.string(), v.minLength(1), v.maxLength(4096));

const ReadInput = v.object({
  path: Path,
  offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

/** A file tool's input schema: `path` (in the session's folder, always required) and the tool's own. */
function pathSchema(properties: Record<string, { type: string; description: string }>, required: string[]) {
  return {
    type: 'object',
    properties: { path: { type: 'string', description: "Path relative to the session's folder." }, ...properties },
    required: ['path', ...required],
  };
}

export const readFileTool: Tool<v.InferOutput<typeof ReadInput>> = {
  spec: {
    name: 'read_file',
    description: `Read a text file in the session's folder (at most ${MAX_FILE_BYTES} bytes). Lines are numbered. Use offset and limit (1-based lines) for part of a file.`,
    inputSchema: pathSchema(
      {
        offset: { type: 'integer', description: 'First line to return (1-based).' },
        limit: { type: 'integer', description: 'Number of lines to return.' },
      },
      [],
    ),
  },
  parse: (input) => parseInput(ReadInput, input),
  title: (input) => input.path,
  // Reads run without asking, but for a hidden entry of the home folder (home-reads.ts).
  approval: (input, context) => homeReadApproval(context, input.path, 'Read'),
  async run(input, context) {
    const read = await context.exec.readFile(context.cwd, input.path, MAX_FILE_BYTES);
    if (!read.ok) return failedOutcome(read.error);
    const lines = read.value.text.split('\n');
    const start = (input.offset ?? 1) - 1;
    const slice = lines.slice(start, input.limit ? start + input.limit : undefined);
    const numbered = slice.map((line, i) => `${String(start + i + 1).padStart(6)}  ${line}`).join('\n');
    return { ok: true, output: numbered };
  },
};

const WriteInput = v.object({ path: Path, content: v.pipe(v.string(), v.maxLength(MAX_FILE_BYTES)) });

async function currentText(
  context: ToolContext,
  path: string,
): Promise<{ ok: true; text: string } | { ok: false; error: ExecError }> {
  const read = await context.exec.readFile(context.cwd, path, MAX_FILE_BYTES);
  if (read.ok) return { ok: true, text: read.value.text };
  return read.error.code === 'not-found' ? { ok: true, text: '' } : read;
}

/**
 * The file content each approved change was shown against, by the tool input it was made for
 * (the agent loop asks for approval and then runs with the same input object). A change runs only
 * over exactly that content: if the file changed while the person read the diff, the diff they
 * approved is not what would happen, so nothing is written.
 */
const approvedAgainst = new WeakMap<object, string>();

function changedMeanwhile(input: object, current: string): string | undefined {
  const shown = approvedAgainst.get(input);
  approvedAgainst.delete(input);
  return shown !== undefined && shown !== current
    ? 'Nothing was written: the file changed while the approval waited, so the diff that was approved is no longer what would happen. Read the file again and propose the change anew.'
    : undefined;
}

/**
 * What a write to `path` is called in its approval: the name the model gave, and where a link
 * (the file, or a folder on its way) really takes the write, when that is somewhere else.
 */
async function writeTarget(context: ToolContext, path: string): Promise<Result<string, ExecError>> {
  const [root, real] = await Promise.all([
    context.exec.realPath(context.cwd, '.'),
    context.exec.realPath(context.cwd, path),
  ]);
  if (!root.ok) return root;
  if (!real.ok) return real;
  const named = resolve(root.value, path);
  return ok(real.value === named ? path : `${path} (a link: this writes ${displayPath(root.value, real.value)})`);
}

/**
 * The approval of a change from `before` to `after`: the whole diff, or a refusal when it cannot be
 * shown whole. `before` is remembered as what the person approved against.
 */
async function approveChange(
  input: { path: string },
  context: ToolContext,
  before: string,
  after: string,
  verb: 'Write' | 'Edit',
): Promise<ApprovalCheck> {
  const { path } = input;
  const target = await writeTarget(context, path);
  if (!target.ok) return refusal(target.error);
  approvedAgainst.set(input, before);
  const action = `${verb} ${target.value}\n${unifiedDiff(before, after, path)}`;
  if (action.length > MAX_ACTION_TEXT) {
    return {
      refuse: `the change to ${path} is too large to show for approval (${action.length} characters); make smaller changes`,
    };
  }
  return { need: { kind: verb === 'Write' ? 'write' : 'edit', action } };
}

export const writeFileTool: Tool<v.InferOutput<typeof WriteInput>> = {
  spec: {
    name: 'write_file',
    description:
      "Create or overwrite a text file in the session's folder with the given content. Needs the person's approval (they see the diff).",
    inputSchema: pathSchema(
      {
        content: { type: 'string', description: 'The whole new content of the file.' },
      },
      ['content'],
    ),
  },
  parse: (input) => parseInput(WriteInput, input),
  title: (input) => input.path,
  async approval(input, context) {
    const before = await currentText(context, input.path);
    if (!before.ok) return refusal(before.error);
    return approveChange(input, context, before.text, input.content, 'Write');
  },
  async run(input, context) {
    const before = await currentText(context, input.path);
    if (!before.ok) return failedOutcome(before.error);
    const changed = changedMeanwhile(input, before.text);
    if (changed) return { ok: false, output: changed };
    const written = await context.exec.writeFile(context.cwd, input.path, input.content);
    if (!written.ok) return failedOutcome(written.error);
    const where = displayPath(context.cwd, written.value.path);
    return {
      ok: true,
      output: `${written.value.created ? 'Created' : 'Wrote'} ${where} (${Buffer.byteLength(input.content)} bytes)`,
      change: { path: input.path, created: written.value.created, before: before.text, after: input.content },
    };
  },
};

const EditInput = v.object({
  path: Path,
  old_text: v.pipe(v.string(), v.minLength(1)),
  new_text: v.string(),
  replace_all: v.optional(v.boolean()),
});

type EditPlan = { ok: true; before: string; after: string; count: number } | { ok: false; error: ExecError };

async function planEdit(input: v.InferOutput<typeof EditInput>, context: ToolContext): Promise<EditPlan> {
  const read = await context.exec.readFile(context.cwd, input.path, MAX_FILE_BYTES);
  if (!read.ok) return read;
  const before = read.value.text;
  const count = before.split(input.old_text).length - 1;
  const refuse = (message: string): EditPlan => ({ ok: false, error: { code: 'invalid-params', message } });
  if (count === 0) return refuse(`old_text was not found in ${input.path}; read the file and copy the text exactly`);
  if (count > 1 && !input.replace_all) {
    return refuse(
      `old_text occurs ${count} times in ${input.path}; add surrounding lines to make it unique, or set replace_all`,
    );
  }
  const after = input.replace_all
    ? before.split(input.old_text).join(input.new_text)
    : before.replace(input.old_text, () => input.new_text);
  return { ok: true, before, after, count };
}

export const editFileTool: Tool<v.InferOutput<typeof EditInput>> = {
  spec: {
    name: 'edit_file',
    description:
      "Replace exact text in a file in the session's folder. old_text must occur exactly once unless replace_all is set. Needs the person's approval (they see the diff).",
    inputSchema: pathSchema(
      {
        old_text: { type: 'string', description: 'The exact text to replace, including whitespace.' },
        new_text: { type: 'string', description: 'The text to put in its place.' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence instead of requiring exactly one.' },
      },
      ['old_text', 'new_text'],
    ),
  },
  parse: (input) => parseInput(EditInput, input),
  title: (input) => input.path,
  async approval(input, context) {
    const plan = await planEdit(input, context);
    if (!plan.ok) return refusal(plan.error);
    return approveChange(input, context, plan.before, plan.after, 'Edit');
  },
  async run(input, context) {
    // Planned again: the file may have changed while the approval waited.
    const plan = await planEdit(input, context);
    if (!plan.ok) {
      approvedAgainst.delete(input);
      return failedOutcome(plan.error);
    }
    const changed = changedMeanwhile(input, plan.before);
    if (changed) return { ok: false, output: changed };
    const written = await context.exec.writeFile(context.cwd, input.path, plan.after);
    if (!written.ok) return failedOutcome(written.error);
    return {
      ok: true,
      output: `Edited ${input.path}: replaced ${plan.count} occurrence${plan.count === 1 ? '' : 's'}`,
      change: { path: input.path, created: false, before: plan.before, after: plan.after },
    };
  },
};

const ListInput = v.object({ path: v.optional(Path) });

export const listDirTool: Tool<v.InferOutput<typeof ListInput>> = {
  spec: {
    name: 'list_dir',
    description: `List a folder in the session's folder (at most ${MAX_LIST_ENTRIES} entries): name, type and size.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: "Folder relative to the session's folder (default: the folder itself)." },
      },
    },
  },
  parse: (input) => parseInput(ListInput, input ?? {}),
  title: (input) => input.path ?? '.',
  approval: (input, context) => homeReadApproval(context, input.path ?? '.', 'List'),
  async run(input, context) {
    const listed = await context.exec.listDir(context.cwd, input.path ?? '.', MAX_LIST_ENTRIES);
    if (!listed.ok) return failedOutcome(listed.error);
    const lines = listed.value.entries.map((e) =>
      e.type === 'dir' ? `${e.name}/` : e.type === 'file' ? `${e.name}  (${e.size} bytes)` : `${e.name}  (${e.type})`,
    );
    if (listed.value.truncated) lines.push(`… more than ${MAX_LIST_ENTRIES} entries`);
    return {
      ok: true,
      output: lines.length > 0 ? lines.join('\n') : '(empty folder)',
      truncated: listed.value.truncated,
    };
  },
};
