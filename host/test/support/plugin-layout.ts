import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs: string[] = [];
/** Removes every layout made since the last call (an afterEach). */
export function removePluginLayouts(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A project and a home, each with `.agents/plugins/`, and a folder outside both. */
export function pluginLayout() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-plugins-')));
  dirs.push(base);
  const project = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.txt'), 'outside text');
  writeFileSync(join(base, 'outside', 'SKILL.md'), '---\nname: leak\ndescription: x\n---\nbody');
  const projectPlugins = join(project, '.agents', 'plugins');
  const userPlugins = join(home, '.agents', 'plugins');
  mkdirSync(projectPlugins, { recursive: true });
  mkdirSync(userPlugins, { recursive: true });
  return { base, project, home, projectPlugins, userPlugins };
}

/** A plugin folder with a manifest (object or raw text), skills by name and an mcp.json. */
export function plugin(
  root: string,
  folder: string,
  manifest: Record<string, unknown> | string,
  parts: { skills?: string[]; mcp?: unknown } = {},
): string {
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  for (const name of parts.skills ?? []) {
    mkdirSync(join(dir, 'skills', name), { recursive: true });
    writeFileSync(
      join(dir, 'skills', name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: The ${name} skill.\n---\nDo ${name}.\n`,
    );
  }
  if (parts.mcp !== undefined) writeFileSync(join(dir, 'mcp.json'), JSON.stringify(parts.mcp));
  return dir;
}
