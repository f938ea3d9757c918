import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostLocalContext } from '../sessions/host-context.js';
import { runCommand } from '../../test/support/run-command.js';
import { skillsCommand } from '../cli/commands/skills.js';
import { skillTool } from './skill-tool.js';
import { discoverSkills, parseSkillFile, skillsPrompt } from './skills.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function skill(root: string, folder: string, front: string, body = 'Do it this way.') {
  mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, folder, 'SKILL.md'), `---\n${front}\n---\n${body}\n`);
}

/** A project and a home, each with `.agents/skills/`, and a folder outside both. */
function layout() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-skills-')));
  dirs.push(base);
  const project = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.txt'), 'outside text');
  const projectSkills = join(project, '.agents', 'skills');
  const userSkills = join(home, '.agents', 'skills');
  mkdirSync(projectSkills, { recursive: true });
  mkdirSync(userSkills, { recursive: true });
  return { base, project, home, projectSkills, userSkills };
}

const toolContext = (cwd: string) => ({
  sessionId: 's',
  cwd,
  exec: hostLocalContext({}),
  signal: new AbortController().signal,
});

describe('Agent Skills', () => {
  it('reads name and description from the front matter, and refuses what is not a skill', () => {
    expect(parseSkillFile('---\nname: pdf-forms\ndescription: "Fill PDF forms."\n---\nBody')).toEqual({
      name: 'pdf-forms',
      description: 'Fill PDF forms.',
      body: 'Body',
    });
    expect(parseSkillFile('no front matter')).toEqual({
      why: 'SKILL.md does not start with front matter (--- … ---)',
    });
    expect(parseSkillFile('---\nname: Bad Name\ndescription: x\n---\n')).toEqual({
      why: 'its name "Bad Name" is not lower-case letters, digits and hyphens',
    });
    expect(parseSkillFile('---\nname: ok\n---\n')).toEqual({ why: 'it has no description' });
  });

  it("finds the project's and the person's skills, the project's copy winning, and says why any was skipped", async () => {
    const l = layout();
    skill(l.projectSkills, 'release', 'name: release\ndescription: Cut a release.');
    skill(l.userSkills, 'release', 'name: release\ndescription: My own release steps.');
    skill(l.userSkills, 'review', 'name: review\ndescription: Review a change.');
    skill(l.userSkills, 'misnamed', 'name: other\ndescription: x');
    mkdirSync(join(l.userSkills, 'empty'));
    const set = await discoverSkills(hostLocalContext({}), l.project, l.home);
    expect(set.skills).toEqual([
      { name: 'release', description: 'Cut a release.', scope: 'project', folder: join(l.projectSkills, 'release') },
      { name: 'review', description: 'Review a change.', scope: 'user', folder: join(l.userSkills, 'review') },
    ]);
    expect(set.skipped.map((s) => [s.folder.slice(l.base.length), s.why])).toEqual(
      expect.arrayContaining([
        ['/home/.agents/skills/release', "the project's skill of the same name is used"],
        ['/home/.agents/skills/misnamed', "its name other is not its folder's name"],
        ['/home/.agents/skills/empty', 'it has no SKILL.md'],
      ]),
    );
    expect(skillsPrompt(set.skills)).toContain('- release: Cut a release.\n- review: Review a change.');
  });

  it('refuses a skill whose SKILL.md links outside its folder', async () => {
    const l = layout();
    mkdirSync(join(l.projectSkills, 'sneaky'));
    writeFileSync(join(l.base, 'outside', 'SKILL.md'), '---\nname: sneaky\ndescription: x\n---\nbody');
    symlinkSync(join(l.base, 'outside', 'SKILL.md'), join(l.projectSkills, 'sneaky', 'SKILL.md'));
    symlinkSync(join(l.base, 'outside'), join(l.projectSkills, 'linked'));
    const set = await discoverSkills(hostLocalContext({}), l.project, undefined);
    expect(set.skills).toEqual([]);
    expect(set.skipped.map((s) => s.folder.split('/').pop())).toEqual(expect.arrayContaining(['sneaky', 'linked']));
    // Where the person looks: tether skills says which and why.
    const r = await runCommand(skillsCommand, ['--cwd', l.project], { HOME: l.home });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('No skills.\n');
    expect(r.out).toMatch(new RegExp(`skipped ${join(l.projectSkills, 'sneaky')}: .*outside`));
    expect(r.out).toContain(`skipped ${join(l.projectSkills, 'linked')}: it is a link, not a folder`);
  });

  it("does not follow a project's .agents/skills (or .agents) that is itself a link out of the project", async () => {
    const l = layout();
    // The person's own skills elsewhere (say ~/.claude/skills), which a cloned repository points at.
    const elsewhere = join(l.base, 'outside', 'skills');
    skill(elsewhere, 'deploy', 'name: deploy\ndescription: Deploy with my keys.', 'TOKEN=outside-secret');
    rmSync(l.projectSkills, { recursive: true });
    symlinkSync(elsewhere, l.projectSkills);
    const set = await discoverSkills(hostLocalContext({}), l.project, undefined);
    expect(set.skills).toEqual([]);
    expect(set.skipped).toEqual([
      expect.objectContaining({
        scope: 'project',
        why: expect.stringMatching(/^\.agents\/skills is not inside the project/) as unknown,
      }),
    ]);
    // The same through a linked .agents folder.
    rmSync(join(l.project, '.agents'), { recursive: true });
    mkdirSync(join(l.base, 'outside', 'agents'));
    symlinkSync(join(l.base, 'outside', 'skills'), join(l.base, 'outside', 'agents', 'skills'));
    symlinkSync(join(l.base, 'outside', 'agents'), join(l.project, '.agents'));
    expect((await discoverSkills(hostLocalContext({}), l.project, undefined)).skills).toEqual([]);
    const r = await runCommand(skillsCommand, ['--cwd', l.project], { HOME: l.home });
    expect(r.out).not.toContain('deploy');
  });

  it('the skill tool loads the body and its files, confined to the skill folder by real path', async () => {
    const l = layout();
    skill(l.projectSkills, 'release', 'name: release\ndescription: Cut a release.', 'Run scripts/release.sh.');
    mkdirSync(join(l.projectSkills, 'release', 'scripts'));
    writeFileSync(join(l.projectSkills, 'release', 'scripts', 'release.sh'), 'echo release');
    symlinkSync(join(l.base, 'outside', 'secret.txt'), join(l.projectSkills, 'release', 'leak.txt'));
    const { skills } = await discoverSkills(hostLocalContext({}), l.project, undefined);
    const tool = skillTool(skills);
    const context = toolContext(l.project);
    expect(await tool.approval({ name: 'release' }, context)).toEqual({ need: null });
    const loaded = await tool.run({ name: 'release' }, context);
    expect(loaded.ok).toBe(true);
    expect(loaded.output).toContain('Run scripts/release.sh.');
    expect(loaded.output).toContain('scripts/');
    expect(await tool.run({ name: 'release', file: 'scripts/release.sh' }, context)).toEqual({
      ok: true,
      output: 'echo release',
    });
    const leak = await tool.run({ name: 'release', file: 'leak.txt' }, context);
    expect(leak.ok).toBe(false);
    expect(leak.output).not.toContain('outside text');
    const up = await tool.run({ name: 'release', file: '../../../../outside/secret.txt' }, context);
    expect(up.ok).toBe(false);
    expect((await tool.run({ name: 'nope' }, context)).ok).toBe(false);
  });

  it('tether skills --cwd lists them and what was skipped', async () => {
    const l = layout();
    skill(l.projectSkills, 'release', 'name: release\ndescription: Cut a release.');
    skill(l.projectSkills, 'broken', 'description: no name');
    const r = await runCommand(skillsCommand, ['--cwd', l.project], { HOME: l.home });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/release\s+project\s+Cut a release\./);
    expect(r.out).toContain(`skipped ${join(l.projectSkills, 'broken')}: its name "" is not lower-case`);
  });
});
