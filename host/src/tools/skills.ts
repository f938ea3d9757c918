import type { ExecutionContext } from '@tether/machine';
import { posix } from 'node:path';

/**
 * Agent Skills: folders holding a `SKILL.md` whose front matter names the skill and says when it
 * applies. Found in `<project>/.agents/skills/` and `~/.agents/skills/` (immediate children only),
 * read through the session's execution context. Only names and descriptions go into the system
 * prompt; the `skill` tool (skill-tool.ts) loads a body and its files when the model asks.
 */

/** Skill folders looked at per location; more are skipped with a reason. */
export const MAX_SKILLS = 100;
/** Bytes of a SKILL.md read at most (front matter and body). */
export const MAX_SKILL_BYTES = 128 * 1024;
/** Characters of a description kept (the Agent Skills format's own limit). */
const MAX_DESCRIPTION = 1024;
/** A skill's name, as the format has it: lower-case letters, digits and hyphens. */
const NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export type SkillScope = 'project' | 'user';

export interface Skill {
  name: string;
  description: string;
  scope: SkillScope;
  /** The skill's folder (every file it loads is confined to it by real path). */
  folder: string;
  /** The plugin it comes with, for a plugin's skill. */
  plugin?: string;
}

export interface SkippedSkill {
  folder: string;
  scope: SkillScope;
  why: string;
}

export interface SkillSet {
  skills: Skill[];
  skipped: SkippedSkill[];
}

/** The front matter's `name` and `description`, or why it has none usable. */
export function parseSkillFile(text: string): { name: string; description: string; body: string } | { why: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return { why: 'SKILL.md does not start with front matter (--- … ---)' };
  const fields = new Map<string, string>();
  for (const line of match[1]!.split(/\r?\n/)) {
    const field = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    if (!field) continue;
    fields.set(field[1]!, unquote(field[2]!.trim()));
  }
  const name = fields.get('name') ?? '';
  const description = fields.get('description') ?? '';
  if (!NAME.test(name))
    return { why: `its name ${JSON.stringify(name.slice(0, 80))} is not lower-case letters, digits and hyphens` };
  if (description === '') return { why: 'it has no description' };
  if (description.length > MAX_DESCRIPTION) return { why: `its description is over ${MAX_DESCRIPTION} characters` };
  return { name, description, body: match[2]! };
}

function unquote(value: string): string {
  if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0])
    return value.slice(1, -1);
  return value;
}

/**
 * The skills a session may use: the project's (`<project>/.agents/skills/`, when the folder is
 * trusted: `project` given) and the person's (`<home>/.agents/skills/`), the project's copy
 * winning a name both have. A skill that cannot be used is skipped with the reason, and the
 * others go on. The project's skills folder must itself lie in the project by real path: a
 * `.agents/skills` (or `.agents`) that links out of it is not followed.
 */
export async function discoverSkills(
  context: ExecutionContext,
  project: string | undefined,
  home: string | undefined,
): Promise<SkillSet> {
  const set: SkillSet = { skills: [], skipped: [] };
  const locations: [SkillScope, string][] = [];
  if (project !== undefined) {
    const root = await projectFolder(context, project, 'skills');
    if ('why' in root)
      set.skipped.push({ folder: posix.join(project, '.agents', 'skills'), scope: 'project', why: root.why });
    else if (root.path !== undefined) locations.push(['project', root.path]);
  }
  if (home !== undefined) locations.push(['user', posix.join(home, '.agents', 'skills')]);
  for (const [scope, root] of locations) {
    if ((await readSkillsFolder(context, root, { scope }, set)) === 'unreachable') break;
  }
  return set;
}

/**
 * A project's `.agents/<name>` folder as a real path inside the project, confined like every
 * file in it; `path` is undefined when the place cannot be reached (nothing is read then).
 */
export async function projectFolder(
  context: ExecutionContext,
  project: string,
  name: 'skills' | 'plugins',
): Promise<{ path: string | undefined } | { why: string }> {
  const real = await context.realPath(project, posix.join('.agents', name));
  if (real.ok) return { path: real.value };
  if (real.error.code === 'unreachable') return { path: undefined };
  return { why: `.agents/${name} is not inside the project: ${real.error.message}` };
}

/**
 * Adds the skills in one skills folder (its immediate children) to `set`; a name already in it
 * keeps the first. A plugin's skills (`<plugin>/skills/`) are read the same way, under its name.
 */
export async function readSkillsFolder(
  context: ExecutionContext,
  root: string,
  from: { scope: SkillScope; plugin?: string },
  set: SkillSet,
): Promise<'unreachable' | undefined> {
  const { scope } = from;
  const listed = await context.listDir(root, '.', MAX_SKILLS + 1);
  if (!listed.ok && listed.error.code === 'unreachable') return 'unreachable';
  if (!listed.ok) return undefined;
  const entries = listed.value.entries.filter((e) => !e.name.startsWith('.'));
  for (const [i, entry] of entries.entries()) {
    const folder = posix.join(root, entry.name);
    if (i >= MAX_SKILLS) {
      set.skipped.push({ folder, scope, why: `only the first ${MAX_SKILLS} skill folders are read` });
      continue;
    }
    if (entry.type !== 'dir') {
      if (entry.type === 'symlink') set.skipped.push({ folder, scope, why: 'it is a link, not a folder' });
      continue;
    }
    const read = await context.readFile(folder, 'SKILL.md', MAX_SKILL_BYTES);
    if (!read.ok && read.error.code === 'unreachable') return 'unreachable';
    if (!read.ok) {
      set.skipped.push({
        folder,
        scope,
        why: read.error.code === 'not-found' ? 'it has no SKILL.md' : read.error.message,
      });
      continue;
    }
    const parsed = parseSkillFile(read.value.text);
    if ('why' in parsed) {
      set.skipped.push({ folder, scope, why: parsed.why });
      continue;
    }
    if (parsed.name !== entry.name) {
      set.skipped.push({ folder, scope, why: `its name ${parsed.name} is not its folder's name` });
      continue;
    }
    const taken = set.skills.find((s) => s.name === parsed.name);
    if (taken) {
      const winner =
        taken.plugin !== undefined
          ? `plugin ${taken.plugin}'s`
          : `the ${taken.scope === 'project' ? "project's" : "person's"}`;
      set.skipped.push({ folder, scope, why: `${winner} skill of the same name is used` });
      continue;
    }
    set.skills.push({
      name: parsed.name,
      description: parsed.description,
      scope,
      folder,
      ...(from.plugin !== undefined ? { plugin: from.plugin } : {}),
    });
  }
  return undefined;
}

/** The system prompt's list of skills ('' with none). Descriptions are the skills' own text. */
export function skillsPrompt(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  return [
    'Skills: instructions and files for particular tasks. When one applies, load it with the `skill` tool',
    '(its name; then any of its files it names) before you start on the task.',
    ...skills.map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, ' ')}`),
  ].join('\n');
}
