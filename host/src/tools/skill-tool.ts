import { posix } from 'node:path';
import * as v from 'valibot';
import { parseInput } from './parse-input.js';
import type { Skill } from './skills.js';
import { MAX_SKILL_BYTES, parseSkillFile } from './skills.js';
import type { Tool } from './tool.js';
import { failedOutcome } from './tool.js';

/** Entries of a skill's folder listed with its body. */
const MAX_LISTED = 200;

const SkillInput = v.object({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  file: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
});

/**
 * The `skill` tool of one run: loads a discovered skill's SKILL.md body (and lists its folder), or
 * one of its files. Every read is confined to the skill's folder by real path through the
 * execution context, so a file that links outside it is refused. Reads only: it never asks.
 */
export function skillTool(skills: readonly Skill[]): Tool<v.InferOutput<typeof SkillInput>> {
  return {
    spec: {
      name: 'skill',
      description:
        'Load a skill listed in the system prompt: its instructions and the files in its folder. Give `file` (relative to the skill folder) to read one of its files.',
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', enum: skills.map((s) => s.name) },
          file: { type: 'string', description: "A file in the skill's folder, relative to it." },
        },
        required: ['name'],
      },
    },
    parse: (input) => parseInput(SkillInput, input),
    title: (input) => (input.file === undefined ? input.name : `${input.name}: ${input.file}`),
    approval: () => Promise.resolve({ need: null }),
    async run(input, context) {
      const skill = skills.find((s) => s.name === input.name);
      if (!skill) return { ok: false, output: `There is no skill named ${input.name}.` };
      if (input.file !== undefined) {
        const read = await context.exec.readFile(skill.folder, input.file, MAX_SKILL_BYTES);
        return read.ok ? { ok: true, output: read.value.text } : failedOutcome(read.error);
      }
      const read = await context.exec.readFile(skill.folder, 'SKILL.md', MAX_SKILL_BYTES);
      if (!read.ok) return failedOutcome(read.error);
      const parsed = parseSkillFile(read.value.text);
      if ('why' in parsed) return { ok: false, output: `The skill cannot be loaded: ${parsed.why}.` };
      const listed = await context.exec.listDir(skill.folder, '.', MAX_LISTED);
      const files = listed.ok
        ? listed.value.entries
            .filter((e) => e.name !== 'SKILL.md')
            .map((e) => (e.type === 'dir' ? `${e.name}/` : e.name))
        : [];
      const folder =
        files.length === 0
          ? ''
          : `\n\nFiles in the skill's folder (${posix.basename(skill.folder)}/): ${files.join(', ')}`;
      return { ok: true, output: `${parsed.body.trim()}${folder}` };
    },
  };
}
