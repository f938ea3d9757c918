import { describe, expect, it } from 'vitest';
import { claudeCodeDenyRules, claudeCodeMeta } from './claude-code-bounds.js';
import { agentFamily } from './agent-family.js';
import { codexPermissions, codexUntrusted } from './agent-bounds.js';

const privates = ['/home/ada/.ssh', '/home/ada/.npmrc', '/srv/tether-data'];

describe("what Claude Code is told about its own tools and a folder's settings", () => {
  it('denies Read and Edit of every private path, and of every hidden home entry, by absolute path', () => {
    const rules = claudeCodeDenyRules({ trusted: false, privates, home: '/home/ada', cwd: '/home/ada' });
    for (const path of [...privates, '/home/ada/.*']) {
      for (const tool of ['Read', 'Edit']) {
        expect(rules).toContain(`${tool}(/${path})`);
        expect(rules).toContain(`${tool}(/${path}/**)`);
      }
    }
    expect(rules).toHaveLength((privates.length + 1) * 4);
  });

  it('leaves reachable the hidden home entry the session works in, and names the others one by one', () => {
    const rules = claudeCodeDenyRules({
      trusted: true,
      privates,
      home: '/home/ada',
      cwd: '/home/ada/.dotfiles/nvim',
      hiddenHomeEntries: ['.dotfiles', '.config', '.bashrc', 'code'],
    });
    expect(rules).not.toContain('Read(//home/ada/.*)');
    expect(rules).not.toContain('Read(//home/ada/.dotfiles/**)');
    expect(rules).toContain('Read(//home/ada/.config/**)');
    expect(rules).toContain('Read(//home/ada/.bashrc)');
    expect(rules.some((r) => r.includes('/code'))).toBe(false);
  });

  it('escapes glob characters in a path, so a rule matches that path only', () => {
    const rules = claudeCodeDenyRules({ trusted: false, privates: ['/home/a/[x]*?{y}!'], cwd: '/w' });
    expect(rules[0]).toBe('Read(//home/a/\\[x\\]\\*\\?\\{y\\}\\!)');
  });

  it('loads user settings only until the folder is trusted, and passes the rules as a settings layer of their own', () => {
    const meta = (trusted: boolean) =>
      claudeCodeMeta({ trusted, privates, home: '/home/ada', cwd: '/home/ada/src' }) as {
        claudeCode: { options: { settingSources: string[]; extraArgs: { settings: string } } };
      };
    expect(meta(false).claudeCode.options.settingSources).toEqual(['user']);
    expect(meta(true).claudeCode.options.settingSources).toEqual(['user', 'project', 'local']);
    const settings = JSON.parse(meta(false).claudeCode.options.extraArgs.settings) as {
      permissions: { deny: string[] };
    };
    expect(settings.permissions.deny).toContain('Read(//home/ada/.ssh/**)');
  });
});

describe('which adapter an agent is', () => {
  it('knows the three adapters by their program, wherever installed, and nothing else', () => {
    expect(agentFamily({ command: 'claude-code-acp', args: [] })).toBe('claude-code');
    expect(agentFamily({ command: '/opt/n/bin/claude-code-acp', args: [] })).toBe('claude-code');
    expect(agentFamily({ command: 'codex-acp', args: [] })).toBe('codex');
    expect(agentFamily({ command: 'gemini', args: ['--experimental-acp'] })).toBe('gemini');
    expect(agentFamily({ command: 'gemini', args: [] })).toBe('other');
    expect(agentFamily({ command: 'my-agent', args: ['--acp'] })).toBe('other');
  });

  it('marks the folder untrusted for Codex with a TOML override naming it exactly', () => {
    expect(codexUntrusted('/home/ada/src/a "b"')).toBe(
      'projects={ "/home/ada/src/a \\"b\\"" = { trust_level = "untrusted" } }',
    );
  });

  it('gives Codex a sandbox profile that reads no private path, writes only where named, and asks before what is not read-only', () => {
    const args = codexPermissions(['/home/ada/.ssh', '/home/ada/.aws'], ['/home/ada', '/tmp']);
    expect(args).toEqual([
      '-c',
      'approval_policy="untrusted"',
      '-c',
      'default_permissions="tether"',
      '-c',
      'permissions.tether={ filesystem = { ":root" = "read", "/home/ada" = "write", "/tmp" = "write", ' +
        '"/home/ada/.ssh" = "none", "/home/ada/.aws" = "none" }, network = { enabled = true } }',
    ]);
  });
});
