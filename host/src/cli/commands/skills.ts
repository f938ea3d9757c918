import { visibleText } from '@tether/shared-protocol';
import { resolve } from 'node:path';
import { flag, stringOption } from '../args.js';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { JSON_OPTION, printJson, table } from '../common.js';
import { hostLocalContext } from '../../sessions/host-context.js';
import { repositoryRoot } from '../../sessions/builtin/project-instructions.js';
import { discoverSkills } from '../../tools/skills.js';
import { valueOption } from '../option.js';

export const skillsCommand: Command = {
  path: ['skills'],
  summary: "list the Agent Skills a session of Tether's own loop in a folder gets, and why any was skipped",
  details:
    'Skills are folders with a SKILL.md in <repository>/.agents/skills/ and ~/.agents/skills/ (the project wins a name both have). Read on this computer, as a session here reads them.',
  options: [valueOption('cwd', 'DIR', 'the session folder (default: the current folder)'), JSON_OPTION],
  arity: [0, 0],
  run: async (context) => {
    const exec = hostLocalContext(context.env);
    const folder = await exec.checkFolder(resolve(stringOption(context.args, 'cwd') ?? process.cwd()));
    if (!folder.ok) {
      context.stderr.write(`tether skills: ${visibleText(folder.error.message)}\n`);
      return Exit.Error;
    }
    const set = await discoverSkills(exec, await repositoryRoot(exec, folder.value), exec.home);
    if (flag(context.args, 'json')) {
      printJson(context, set);
      return Exit.Ok;
    }
    if (set.skills.length === 0) context.stdout.write('No skills.\n');
    else {
      const rows = set.skills.map((s) => [s.name, s.scope, visibleText(s.description, { maxLength: 80 })]);
      context.stdout.write(table([['NAME', 'FROM', 'DESCRIPTION'], ...rows]));
    }
    for (const s of set.skipped) context.stdout.write(`skipped ${visibleText(s.folder)}: ${visibleText(s.why)}\n`);
    return Exit.Ok;
  },
};
