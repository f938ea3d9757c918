import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { plugin, pluginLayout, removePluginLayouts } from '../../test/support/plugin-layout.js';
import { afterEach, describe, expect, it } from 'vitest';
import { hostLocalContext } from '../sessions/host-context.js';
import { decodeManifest } from './plugin-manifest.js';
import { serverCommandLine } from './plugin-servers.js';
import { discoverPlugins } from './plugins.js';

afterEach(removePluginLayouts);

const context = () => hostLocalContext({});

describe('plugin.json', () => {
  it('takes the fields of the format and refuses any other', () => {
    const good = decodeManifest(
      JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'release-kit',
        version: '1.2.0',
        description: 'Cut releases.',
        author: { name: 'A. Person', url: 'https://example.com' },
        keywords: ['release'],
        extensions: { 'com.example.client': { anything: true } },
      }),
    );
    expect(good.ok && good.value.name).toBe('release-kit');
    const refuse = (manifest: unknown) => {
      const decoded = decodeManifest(JSON.stringify(manifest));
      return decoded.ok ? 'accepted' : decoded.error.message;
    };
    expect(refuse({ name: 'x', hooks: { start: 'rm -rf /' } })).toBe(
      'plugin.json: hooks: is a field the format does not define',
    );
    expect(refuse({ name: 'x', author: { name: 'a', shell: 'sh' } })).toBe(
      'plugin.json: author.shell: is a field the format does not define',
    );
    expect(refuse({ version: '1' })).toBe('plugin.json: name: is required');
    expect(refuse({ name: 'Bad Name' })).toMatch(/^plugin\.json: name: must be lower-case/);
    expect(refuse([])).toBe('plugin.json: the manifest must hold a JSON object');
    expect(decodeManifest('{').ok).toBe(false);
  });
});

describe('discovering plugins', () => {
  it("finds the project's and the person's, the project's copy of a name winning, and lists what failed with why", async () => {
    const l = pluginLayout();
    plugin(l.projectPlugins, 'kit', { name: 'kit', description: 'Project kit.' }, { skills: ['release'] });
    plugin(l.userPlugins, 'my-kit', { name: 'kit', description: 'My kit.' });
    plugin(l.userPlugins, 'tools', { name: 'tools' }, { skills: ['review'] });
    plugin(l.userPlugins, 'strange', { name: 'strange', commands: ['x'] });
    mkdirSync(join(l.userPlugins, 'empty'));
    symlinkSync(join(l.base, 'outside'), join(l.userPlugins, 'linked'));
    plugin(l.userPlugins, 'off', { name: 'off' }, { skills: ['off-skill'] });
    const found = await discoverPlugins(context(), l.project, l.home, ['off']);
    const summary = found.map((p) => [p.name, p.scope, p.status, p.why ?? '', p.skills.map((s) => s.name)]);
    expect(summary).toEqual(
      expect.arrayContaining([
        ['kit', 'project', 'enabled', '', ['release']],
        ['kit', 'user', 'skipped', "the project's plugin of the same name is used", []],
        ['tools', 'user', 'enabled', '', ['review']],
        ['strange', 'user', 'failed', 'plugin.json: commands: is a field the format does not define', []],
        ['empty', 'user', 'failed', 'it has no plugin.json', []],
        ['linked', 'user', 'failed', 'it is a link or a special file, not a folder', []],
        ['off', 'user', 'disabled', 'disabled with tether plugins disable', []],
      ]),
    );
    expect(found).toHaveLength(7);
    const kit = found.find((p) => p.name === 'kit' && p.scope === 'project')!;
    expect(kit.skills[0]).toMatchObject({ plugin: 'kit', folder: join(kit.folder, 'skills', 'release') });
  });

  it('disables only the skill whose files link outside its folder, and a skills/ that leads out of the plugin', async () => {
    const l = pluginLayout();
    const kit = plugin(l.projectPlugins, 'kit', { name: 'kit' }, { skills: ['good'] });
    mkdirSync(join(kit, 'skills', 'leak'));
    symlinkSync(join(l.base, 'outside', 'SKILL.md'), join(kit, 'skills', 'leak', 'SKILL.md'));
    const other = plugin(l.projectPlugins, 'other', { name: 'other' });
    symlinkSync(join(l.base, 'outside'), join(other, 'skills'));
    const found = await discoverPlugins(context(), l.project, undefined, []);
    const byName = new Map(found.map((p) => [p.name, p]));
    expect(byName.get('kit')).toMatchObject({ status: 'enabled' });
    expect(byName.get('kit')!.skills.map((s) => s.name)).toEqual(['good']);
    expect(byName.get('kit')!.problems).toEqual([
      expect.stringMatching(/^the skill in .*\/skills\/leak was skipped: .*outside/),
    ]);
    expect(byName.get('other')).toMatchObject({ status: 'enabled', skills: [] });
    expect(byName.get('other')!.problems).toEqual([expect.stringMatching(/^skills\/ is not inside the plugin: /)]);
  });

  it("does not follow a project's .agents/plugins that is itself a link out of the project", async () => {
    const l = pluginLayout();
    // The person's own plugins elsewhere, which a cloned repository points at.
    const elsewhere = join(l.base, 'outside', 'plugins');
    plugin(elsewhere, 'mine', { name: 'mine' }, { skills: ['deploy'], mcp: { mcpServers: { s: { command: 'npx' } } } });
    rmSync(l.projectPlugins, { recursive: true });
    symlinkSync(elsewhere, l.projectPlugins);
    const found = await discoverPlugins(context(), l.project, undefined, []);
    expect(found).toEqual([
      expect.objectContaining({
        scope: 'project',
        status: 'failed',
        why: expect.stringMatching(/^\.agents\/plugins is not inside the project/) as unknown,
        skills: [],
        servers: [],
      }),
    ]);
  });

  it('reads mcp.json per server: a bad server is disabled on its own, with why', async () => {
    const l = pluginLayout();
    const kit = plugin(
      l.projectPlugins,
      'kit',
      { name: 'kit' },
      {
        mcp: {
          $schema: 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json',
          mcpServers: {
            npx: { type: 'stdio', command: 'npx', args: ['-y', 'some-server'], env: { MODE: 'a b' } },
            local: { command: './bin/server.sh', args: ['--port', '0'], cwd: 'bin' },
            absolute: { command: '/usr/bin/env', args: ['sh', '-c', 'id'] },
            escape: { command: '../../../../outside/secret.txt' },
            linked: { command: './bin/link' },
            trusting: { command: 'npx', trusted: true },
            typo: { command: 'npx', arg: ['x'] },
            cleartext: { type: 'http', url: 'http://mcp.example.com/mcp' },
            web: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
            mismatch: { type: 'http', command: 'npx' },
            outcwd: { command: 'npx', cwd: '../..' },
          },
        },
      },
    );
    mkdirSync(join(kit, 'bin'));
    writeFileSync(join(kit, 'bin', 'server.sh'), '#!/bin/sh\n');
    symlinkSync(join(l.base, 'outside', 'secret.txt'), join(kit, 'bin', 'link'));
    const [found] = await discoverPlugins(context(), l.project, undefined, []);
    expect(found!.status).toBe('enabled');
    const servers = Object.fromEntries(found!.servers.map((s) => [s.name, s.why ?? serverCommandLine(s.config!)]));
    expect(servers).toEqual({
      npx: `MODE='a b' npx -y some-server  (in ${kit})`,
      local: `${join(kit, 'bin', 'server.sh')} --port 0  (in ${join(kit, 'bin')})`,
      absolute:
        "its command /usr/bin/env is an absolute path; a plugin's server runs a program on PATH or a file inside the plugin",
      escape: expect.stringMatching(
        /^its command \.\.\/\.\.\/\.\.\/\.\.\/outside\/secret\.txt is not inside the plugin: /,
      ) as unknown,
      linked: expect.stringMatching(/^its command \.\/bin\/link is not inside the plugin: /) as unknown,
      trusting: 'trusted is a field the format does not define',
      typo: 'arg is a field the format does not define',
      cleartext: expect.stringMatching(/^url: must be https:\/\//) as unknown,
      web: expect.stringMatching(
        /^https:\/\/mcp\.example\.com\/mcp \(headers: Authorization; values [0-9a-f]{8}\)$/,
      ) as unknown,
      mismatch: 'its type "http" does not match its command',
      outcwd: expect.stringMatching(/^its cwd \.\.\/\.\. is not inside the plugin: /) as unknown,
    });
    expect(found!.servers.every((s) => s.config === undefined || !s.config.trusted)).toBe(true);
  });

  it('keeps a plugin whose mcp.json is broken, without servers, and says why', async () => {
    const l = pluginLayout();
    const kit = plugin(l.projectPlugins, 'kit', { name: 'kit' }, { skills: ['release'] });
    writeFileSync(join(kit, 'mcp.json'), '{ not json');
    const [found] = await discoverPlugins(context(), l.project, undefined, []);
    expect(found).toMatchObject({ status: 'enabled', servers: [] });
    expect(found!.skills.map((s) => s.name)).toEqual(['release']);
    expect(found!.problems).toEqual([expect.stringMatching(/^mcp\.json is not valid JSON/)]);
  });
});
