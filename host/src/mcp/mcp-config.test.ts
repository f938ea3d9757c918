import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeMcpConfig, loadMcpConfig } from './mcp-config.js';
import type { Result } from '@tether/shared-protocol';
import type { McpConfig } from './mcp-config.js';

const BASE = '/etc/tether';

function decode(value: unknown): Result<McpConfig> {
  return decodeMcpConfig(JSON.stringify(value), BASE);
}

function message(load: Result<McpConfig>): string {
  if (load.ok) throw new Error(`expected an error, got ${JSON.stringify(load.value)}`);
  return load.error.message;
}

describe('decodeMcpConfig', () => {
  it('decodes a stdio entry with defaults and a relative cwd resolved against the file', () => {
    const load = decode({
      mcpServers: {
        github: { command: 'npx', args: ['-y', 'server-github'], env: { GITHUB_TOKEN: 't' }, cwd: 'work' },
        plain: { command: 'srv' },
      },
    });
    expect(load).toEqual({
      ok: true,
      value: {
        servers: [
          {
            name: 'github',
            config: {
              transport: 'stdio',
              command: 'npx',
              args: ['-y', 'server-github'],
              env: { GITHUB_TOKEN: 't' },
              cwd: '/etc/tether/work',
              trusted: false,
            },
          },
          { name: 'plain', config: { transport: 'stdio', command: 'srv', args: [], env: {}, trusted: false } },
        ],
      },
    });
  });

  it('decodes an http entry with headers and the trusted flag', () => {
    const load = decode({
      mcpServers: {
        'web-1': { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' }, trusted: true },
      },
    });
    expect(load).toEqual({
      ok: true,
      value: {
        servers: [
          {
            name: 'web-1',
            config: {
              transport: 'http',
              url: 'https://mcp.example.com/mcp',
              headers: { Authorization: 'Bearer x' },
              trusted: true,
            },
          },
        ],
      },
    });
  });

  it('keeps an absolute cwd and ignores keys other tools put in an entry', () => {
    const load = decode({
      mcpServers: { a: { type: 'stdio', command: 'x', cwd: '/srv', autoApprove: [], disabled: false } },
    });
    expect(load.ok && load.value.servers[0]?.config).toEqual({
      transport: 'stdio',
      command: 'x',
      args: [],
      env: {},
      cwd: '/srv',
      trusted: false,
    });
  });

  it('treats a file without mcpServers as empty', () => {
    expect(decode({})).toEqual({ ok: true, value: { servers: [] } });
    expect(decode({ mcpServers: {} })).toEqual({ ok: true, value: { servers: [] } });
  });

  it.each([
    [{ mcpServers: { github: {} } }, 'mcpServers.github: needs either "command" or "url"'],
    [{ mcpServers: { github: { command: 'x', url: 'https://a' } } }, 'mcpServers.github: has both "command" and "url"'],
    [{ mcpServers: { 'a b': { command: 'x' } } }, 'mcpServers["a b"]: server names may use only letters'],
    [{ mcpServers: { ['x'.repeat(41)]: { command: 'x' } } }, 'server names may use only letters'],
    [{ mcpServers: { a: { command: '' } } }, 'mcpServers.a.command: must not be empty'],
    [{ mcpServers: { a: { command: 3 } } }, 'mcpServers.a.command: must be a string'],
    [{ mcpServers: { a: { command: 'x', args: ['ok', 1] } } }, 'mcpServers.a.args[1]: must be a string'],
    [{ mcpServers: { a: { command: 'x', args: 'one' } } }, 'mcpServers.a.args: must be an array of strings'],
    [{ mcpServers: { a: { command: 'x', env: { K: 1 } } } }, 'mcpServers.a.env.K: must be a string'],
    [{ mcpServers: { a: { command: 'x', trusted: 'yes' } } }, 'mcpServers.a.trusted: must be true or false'],
    [{ mcpServers: { a: { url: 'ftp://x' } } }, 'mcpServers.a.url: must be an http:// or https:// URL'],
    [{ mcpServers: { a: { url: 'not a url' } } }, 'mcpServers.a.url: must be an http:// or https:// URL'],
    [{ mcpServers: { a: { url: 'https://x', args: [] } } }, 'mcpServers.a: "args", "env" and "cwd" belong to'],
    [{ mcpServers: { a: { command: 'x', headers: {} } } }, 'mcpServers.a: "headers" belong to a "url" entry'],
    [{ mcpServers: { a: 'npx' } }, 'mcpServers.a: must be an object'],
    [{ mcpServers: [] }, 'mcpServers: must be an object'],
    [[], 'the file must hold a JSON object'],
  ])('rejects %j', (value, expected) => {
    expect(message(decode(value))).toContain(expected);
  });

  it('reports several problems at once', () => {
    const text = message(decode({ mcpServers: { a: {}, b: { command: 1 } } }));
    expect(text).toContain('mcpServers.a:');
    expect(text).toContain('mcpServers.b.command:');
  });

  it('rejects invalid JSON', () => {
    expect(message(decodeMcpConfig('{ "mcpServers": ', BASE))).toMatch(/^invalid JSON: /);
  });
});

describe('loadMcpConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tether-mcp-config-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a file and anchors a relative cwd at its directory', () => {
    const path = join(dir, 'mcp.json');
    writeFileSync(path, JSON.stringify({ mcpServers: { s: { command: 'x', cwd: 'sub' } } }));
    const load = loadMcpConfig(path, { required: true });
    expect(load.ok && load.value.servers[0]?.config).toMatchObject({ transport: 'stdio', cwd: join(dir, 'sub') });
  });

  it('treats a missing optional file as an empty config', () => {
    expect(loadMcpConfig(join(dir, 'mcp.json'), { required: false })).toEqual({ ok: true, value: { servers: [] } });
  });

  it('fails on a missing required file, naming it', () => {
    const path = join(dir, 'mine.json');
    expect(message(loadMcpConfig(path, { required: true }))).toBe(`MCP config ${path} does not exist`);
  });

  it('names the file and the problem for bad JSON and a bad shape, required or not', () => {
    const path = join(dir, 'mcp.json');
    writeFileSync(path, '{ not json');
    expect(message(loadMcpConfig(path, { required: false }))).toMatch(new RegExp(`^MCP config ${path}: invalid JSON`));
    writeFileSync(path, JSON.stringify({ mcpServers: { github: { args: [] } } }));
    expect(message(loadMcpConfig(path, { required: false }))).toBe(
      `MCP config ${path}: mcpServers.github: needs either "command" or "url"`,
    );
  });

  it('refuses a file that is not readable as a file', () => {
    expect(message(loadMcpConfig(dir, { required: false }))).toContain(`MCP config ${dir} cannot be read`);
  });
});
