/**
 * Plugins as a run gets them, with real MCP servers over stdio, and the `tether plugins` commands
 * that list them and decide about them.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { pluginsCommand, pluginsDisableCommand, pluginsEnableCommand } from '../cli/commands/plugins.js';
import { hostLocalContext } from '../sessions/host-context.js';
import { plugin, pluginLayout, removePluginLayouts } from '../../test/support/plugin-layout.js';
import { runCommand } from '../../test/support/run-command.js';
import { PluginRuntime } from './plugin-runtime.js';

const ECHO = fileURLToPath(new URL('../../test/fixtures/mcp-echo-server.mjs', import.meta.url));

const runtimes: PluginRuntime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
  removePluginLayouts();
});

function setup() {
  const l = pluginLayout();
  const data = join(l.base, 'data');
  mkdirSync(data, { mode: 0o700 });
  const runtime = new PluginRuntime({ statePath: join(data, 'plugins.json'), startTimeoutMs: 10_000 });
  runtimes.push(runtime);
  const env = { HOME: l.home };
  const forRun = (place = 'local', trusted = true) =>
    runtime.forRun({ context: hostLocalContext(env), root: l.project, trusted, place, skillNames: [] });
  const cli = (command: Parameters<typeof runCommand>[0], args: string[]) =>
    runCommand(command, [...args, '--data-dir', data], env);
  return { ...l, data, runtime, forRun, cli };
}

const echoServer = (args: string[] = []) => ({ mcpServers: { echo: { command: 'node', args: [ECHO, ...args] } } });

describe('plugins in a run', () => {
  it("loads a project's plugins, skills and servers only when its folder is trusted", async () => {
    const s = setup();
    plugin(s.projectPlugins, 'kit', { name: 'kit' }, { skills: ['release'], mcp: echoServer() });

    const untrusted = await s.forRun('local', false);
    expect([untrusted.skills, untrusted.tools, untrusted.notices]).toEqual([[], [], []]);

    const trusted = await s.forRun('local', true);
    expect(trusted.notices).toEqual([]);
    expect(trusted.skills.map((k) => k.name)).toEqual(['release']);
    expect(trusted.tools.map((t) => t.spec.name)).toContain('mcp__kit_echo__echo');
    // A plugin's server is never trusted: each of its tool calls asks.
    expect(trusted.tools.every((t) => !t.trusted)).toBe(true);
    const echo = trusted.tools[0]!;
    expect(await echo.call({ text: 'from a plugin' }, new AbortController().signal)).toEqual({
      output: 'from a plugin',
      isError: false,
    });
  });

  it("starts the person's own plugin servers as configured, and none for a session on a machine", async () => {
    const s = setup();
    plugin(s.userPlugins, 'mine', { name: 'mine' }, { mcp: echoServer() });
    const here = await s.forRun();
    expect(here.notices).toEqual([]);
    expect(here.tools.map((t) => t.spec.name)).toContain('mcp__mine_echo__echo');
    const there = await s.forRun('m-laptop');
    expect(there.tools).toEqual([]);
    expect(there.notices).toEqual([
      "Plugin mine's MCP server echo was not started: a plugin's MCP servers run only for sessions on the host's computer.",
    ]);
  });

  it('says why a plugin, a skill or a server was left out, and starts nothing for an absolute command', async () => {
    const s = setup();
    plugin(s.projectPlugins, 'bad', { name: 'bad', run: 'anything' });
    plugin(
      s.userPlugins,
      'abs',
      { name: 'abs' },
      { mcp: { mcpServers: { sh: { command: '/bin/sh', args: ['-c', 'touch pwned'] } } } },
    );
    const listed = await s.cli(pluginsCommand, ['--cwd', s.project]);
    expect(listed.out).toContain(
      "abs: MCP server sh is disabled: its command /bin/sh is an absolute path; a plugin's server runs a program on PATH or a file inside the plugin\n",
    );
    const run = await s.forRun();
    expect(run.tools).toEqual([]);
    // Nothing ran: the command would have left a file in the plugin folder (its cwd).
    expect(existsSync(join(s.userPlugins, 'abs', 'pwned'))).toBe(false);
    expect(run.notices).toEqual([
      `The plugin in ${join(s.projectPlugins, 'bad')} was not loaded: plugin.json: run: is a field the format does not define.`,
      "Plugin abs's MCP server sh is disabled: its command /bin/sh is an absolute path; a plugin's server runs a program on PATH or a file inside the plugin.",
    ]);
  });

  it('tether plugins lists status and why; enable and disable persist in the data dir', async () => {
    const s = setup();
    plugin(
      s.projectPlugins,
      'kit',
      { name: 'kit', description: 'Release kit.' },
      { skills: ['release'], mcp: echoServer() },
    );
    plugin(s.userPlugins, 'strange', { name: 'strange', hooks: {} });
    const listed = await s.cli(pluginsCommand, ['--cwd', s.project]);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toMatch(/kit\s+project\s+enabled\s+1\s+1\s+Release kit\./);
    expect(listed.out).toMatch(
      /strange\s+user\s+failed\s+0\s+0\s+plugin\.json: hooks: is a field the format does not define/,
    );
    expect(listed.out).toContain(`kit: MCP server echo (in a trusted folder only): node ${ECHO}`);

    expect((await s.cli(pluginsDisableCommand, ['kit'])).code).toBe(0);
    expect((await s.cli(pluginsCommand, ['--cwd', s.project])).out).toMatch(/kit\s+project\s+disabled/);
    const off = await s.forRun();
    expect([off.skills, off.tools]).toEqual([[], []]);
    expect(off.notices).toEqual([expect.stringContaining('strange was not loaded') as unknown]);
    expect((await s.cli(pluginsEnableCommand, ['kit'])).code).toBe(0);
    expect((await s.forRun()).skills.map((k) => k.name)).toEqual(['release']);
    expect((await s.cli(pluginsDisableCommand, ['Not A Name'])).code).toBe(2);
  });

  it('never prints a remote server header value, in text or JSON', async () => {
    const s = setup();
    const web = { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t0ps3cret' } };
    plugin(s.userPlugins, 'web', { name: 'web' }, { mcp: { mcpServers: { web } } });
    const text = await s.cli(pluginsCommand, ['--cwd', s.project]);
    const json = await s.cli(pluginsCommand, ['--cwd', s.project, '--json']);
    expect(text.out).toContain('web: MCP server web: https://mcp.example.com/mcp (headers: Authorization; values ');
    expect(JSON.parse(json.out)).toMatchObject({
      plugins: [{ name: 'web', servers: [{ name: 'web', transport: 'http' }] }],
    });
    expect(text.out + json.out).not.toContain('t0ps3cret');
  });
});
