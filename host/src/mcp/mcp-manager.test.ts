/**
 * McpManager against real MCP servers: Node child processes running the fixtures in
 * host/test/fixtures over stdio. Each test starts what it needs and closes it.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpConfig, McpServerConfig, McpStdioServerConfig } from './mcp-config.js';
import { loadMcpConfig } from './mcp-config.js';
import { McpManager } from './mcp-manager.js';
import type { McpManagerOptions } from './mcp-manager.js';
import type { McpNotice, McpTool } from './types.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../test/fixtures/${name}`, import.meta.url));
const ECHO = fixture('mcp-echo-server.mjs');
const CRASH_AT_START = fixture('mcp-crash-at-start.mjs');

function node(script: string, extra: Partial<Omit<McpStdioServerConfig, 'transport'>> = {}): McpStdioServerConfig {
  return { transport: 'stdio', command: process.execPath, args: [script], env: {}, trusted: false, ...extra };
}

function config(servers: Record<string, McpServerConfig>): McpConfig {
  return { servers: Object.entries(servers).map(([name, server]) => ({ name, config: server })) };
}

const running: McpManager[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((manager) => manager.close()));
});

async function start(
  servers: Record<string, McpServerConfig>,
  options: Partial<McpManagerOptions> = {},
): Promise<{ manager: McpManager; notices: McpNotice[] }> {
  const notices: McpNotice[] = [];
  const manager = await McpManager.start(config(servers), { onNotice: (n) => notices.push(n), ...options });
  running.push(manager);
  return { manager, notices };
}

function tool(manager: McpManager, name: string): McpTool {
  const found = manager.tools().find((t) => t.spec.name === name);
  if (!found)
    throw new Error(
      `no tool ${name} in ${manager
        .tools()
        .map((t) => t.spec.name)
        .join(', ')}`,
    );
  return found;
}

const signal = () => new AbortController().signal;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function serverPid(manager: McpManager, name: string): Promise<number> {
  const result = await tool(manager, `mcp__${name}__pid`).call({}, signal());
  const pid = Number(result.output);
  expect(Number.isInteger(pid) && pid > 0 && pid !== process.pid).toBe(true);
  return pid;
}

/** Notices arrive a turn after the state changes (stderr is drained first). */
async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('McpManager over stdio', () => {
  it('lists the tools with mcp__ names, descriptions, schemas and the trusted flag', async () => {
    const { manager, notices } = await start({ echo: node(ECHO, { trusted: true }) });
    const names = manager.tools().map((t) => t.spec.name);
    expect(names).toEqual([
      'mcp__echo__echo',
      'mcp__echo__add',
      'mcp__echo__fail',
      'mcp__echo__crash',
      'mcp__echo__slow',
      'mcp__echo__image',
      'mcp__echo__pid',
      'mcp__echo__env',
      'mcp__echo__cwd',
    ]);
    const echo = tool(manager, 'mcp__echo__echo');
    expect(echo).toMatchObject({ server: 'echo', tool: 'echo', trusted: true });
    expect(echo.spec.description).toBe('Returns its text.');
    expect(echo.spec.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', description: 'What to echo' } },
      required: ['text'],
    });
    expect(manager.status()).toEqual([{ name: 'echo', state: 'running', transport: 'stdio', tools: 9 }]);
    expect(notices).toEqual([]);
  });

  it('marks tools untrusted unless the config says otherwise', async () => {
    const { manager } = await start({ echo: node(ECHO) });
    expect(manager.tools().every((t) => !t.trusted)).toBe(true);
  });

  it('returns text, summarises other content and passes isError through', async () => {
    const { manager } = await start({ echo: node(ECHO) });
    expect(await tool(manager, 'mcp__echo__echo').call({ text: 'hi there' }, signal())).toEqual({
      output: 'hi there',
      isError: false,
    });
    expect(await tool(manager, 'mcp__echo__add').call({ a: 2, b: 40 }, signal())).toEqual({
      output: '42',
      isError: false,
    });
    expect(await tool(manager, 'mcp__echo__fail').call({}, signal())).toEqual({
      output: 'this tool always fails',
      isError: true,
    });
    expect(await tool(manager, 'mcp__echo__image').call({}, signal())).toEqual({
      output: 'a picture:\n[image image/png, 16 bytes]',
      isError: false,
    });
    // Bad arguments are the tool's error, for the model to correct, not a broken server.
    const bad = await tool(manager, 'mcp__echo__add').call({ a: 'two' }, signal());
    expect(bad.isError).toBe(true);
    expect(manager.status()[0]?.state).toBe('running');
  });

  it('passes the config env on top of a safe default environment, and the cwd', async () => {
    process.env.TETHER_MCP_TEST_SECRET = 'host only';
    try {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-mcp-cwd-')));
      try {
        const { manager } = await start({ echo: node(ECHO, { env: { GREETING: 'hello' }, cwd: dir }) });
        const env = tool(manager, 'mcp__echo__env');
        expect((await env.call({ name: 'GREETING' }, signal())).output).toBe('hello');
        expect((await env.call({ name: 'PATH' }, signal())).output).toBe(process.env.PATH);
        expect((await env.call({ name: 'TETHER_MCP_TEST_SECRET' }, signal())).output).toBe('(unset)');
        expect((await tool(manager, 'mcp__echo__cwd').call({}, signal())).output).toBe(dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      delete process.env.TETHER_MCP_TEST_SECRET;
    }
  });

  it('starts from a config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-mcp-file-'));
    try {
      const path = join(dir, 'mcp.json');
      writeFileSync(path, JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [ECHO] } } }));
      const load = loadMcpConfig(path, { required: true });
      if (!load.ok) throw new Error(load.error.message);
      const manager = await McpManager.start(load.value, { onNotice: () => undefined });
      running.push(manager);
      expect((await tool(manager, 'mcp__files__echo').call({ text: 'from file' }, signal())).output).toBe('from file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('isolates a server that crashes at start: failed, one notice with its stderr, the other works', async () => {
    const { manager, notices } = await start({ broken: node(CRASH_AT_START), echo: node(ECHO) });
    expect(manager.status()).toEqual([
      { name: 'broken', state: 'failed', transport: 'stdio', tools: 0, error: 'failed to start: its process exited' },
      { name: 'echo', state: 'running', transport: 'stdio', tools: 9 },
    ]);
    expect(notices).toHaveLength(1);
    expect(notices[0]?.level).toBe('error');
    expect(notices[0]?.text).toContain("MCP server 'broken' failed to start");
    expect(notices[0]?.text).toContain('crash-at-start: GITHUB_TOKEN is not set');
    expect(manager.tools().every((t) => t.server === 'echo')).toBe(true);
    expect((await tool(manager, 'mcp__echo__echo').call({ text: 'still here' }, signal())).output).toBe('still here');
  });

  it('reports a command that does not exist', async () => {
    const { manager, notices } = await start({
      missing: { transport: 'stdio', command: 'tether-no-such-mcp-server', args: [], env: {}, trusted: false },
    });
    expect(manager.status()[0]).toMatchObject({ state: 'failed', tools: 0 });
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toMatch(/MCP server 'missing' failed to start: .*ENOENT/);
  });

  it('gives up on a server that never answers, and still ends its process', async () => {
    const hung = node('', {
      args: ['-e', "process.stderr.write('hung pid ' + process.pid + '\\n'); setInterval(() => {}, 1000)"],
    });
    const began = Date.now();
    const { manager, notices } = await start({ hung }, { startTimeoutMs: 500 });
    expect(Date.now() - began).toBeLessThan(3_000);
    expect(manager.status()[0]).toMatchObject({ state: 'failed', error: 'failed to start: no answer within 500 ms' });
    expect(notices).toHaveLength(1);
    const pid = Number(/hung pid (\d+)/.exec(notices[0]?.text ?? '')?.[1]);
    expect(pid).toBeGreaterThan(0);
    await manager.close();
    expect(isAlive(pid)).toBe(false);
  });

  it('isolates a server that crashes mid-session: notice, tools gone, calls are error values', async () => {
    const { manager, notices } = await start({ echo: node(ECHO), other: node(ECHO) });
    const pid = await serverPid(manager, 'echo');
    const echo = tool(manager, 'mcp__echo__echo');

    const crashed = await tool(manager, 'mcp__echo__crash').call({}, signal());
    expect(crashed.isError).toBe(true);
    expect(crashed.output).toBe("MCP server 'echo' is not running: it stopped: its process exited");

    await until(() => notices.length > 0);
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toContain("MCP server 'echo' stopped: its process exited");
    expect(notices[0]?.text).toContain('echo server: crashing on purpose');
    expect(manager.tools().some((t) => t.server === 'echo')).toBe(false);
    expect(manager.tools().filter((t) => t.server === 'other')).toHaveLength(9);
    expect(manager.status().map((s) => [s.name, s.state, s.tools])).toEqual([
      ['echo', 'failed', 0],
      ['other', 'running', 9],
    ]);

    // A tool object kept from before the crash answers with an error value.
    expect(await echo.call({ text: 'x' }, signal())).toEqual({
      isError: true,
      output: "MCP server 'echo' is not running: it stopped: its process exited",
    });
    expect((await tool(manager, 'mcp__other__echo').call({ text: 'ok' }, signal())).output).toBe('ok');
    await until(() => !isAlive(pid));
    expect(notices).toHaveLength(1);
  });

  it('times out a slow call without harming the server', async () => {
    const { manager } = await start({ echo: node(ECHO) }, { callTimeoutMs: 300 });
    const began = Date.now();
    const result = await tool(manager, 'mcp__echo__slow').call({ ms: 5_000 }, signal());
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(result).toEqual({ isError: true, output: "MCP server 'echo' did not answer 'slow' within 300 ms" });
    expect((await tool(manager, 'mcp__echo__slow').call({ ms: 10 }, signal())).output).toBe('waited 10 ms');
    expect(manager.status()[0]?.state).toBe('running');
  });

  it('ends a call when the agent aborts it', async () => {
    const { manager } = await start({ echo: node(ECHO) });
    const slow = tool(manager, 'mcp__echo__slow');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const began = Date.now();
    const result = await slow.call({ ms: 5_000 }, controller.signal);
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(result).toEqual({ isError: true, output: "The call to 'slow' on MCP server 'echo' was cancelled" });

    const already = await slow.call({ ms: 5_000 }, AbortSignal.abort());
    expect(already.output).toContain('was cancelled');
    expect((await tool(manager, 'mcp__echo__echo').call({ text: 'after' }, signal())).output).toBe('after');
  });

  it('close() ends every child process and later calls are error values', async () => {
    const { manager, notices } = await start({ a: node(ECHO), b: node(ECHO) });
    const pids = [await serverPid(manager, 'a'), await serverPid(manager, 'b')];
    const kept = tool(manager, 'mcp__a__echo');
    expect(pids.every(isAlive)).toBe(true);

    await manager.close();
    expect(pids.map(isAlive)).toEqual([false, false]);
    expect(manager.status().map((s) => s.state)).toEqual(['closed', 'closed']);
    expect(manager.tools()).toEqual([]);
    expect(await kept.call({ text: 'x' }, signal())).toEqual({
      isError: true,
      output: "MCP server 'a' is not running: it was shut down",
    });
    expect(notices).toEqual([]);
    await manager.close();
  });

  it('starts nothing for an empty config', async () => {
    const { manager } = await start({});
    expect(manager.tools()).toEqual([]);
    expect(manager.status()).toEqual([]);
  });
});
