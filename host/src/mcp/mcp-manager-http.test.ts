/**
 * McpManager against a streamable HTTP MCP server started in this process on 127.0.0.1.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startMcpHttpServer } from '../../test/fixtures/mcp-http-server.js';
import type { McpHttpTestServer } from '../../test/fixtures/mcp-http-server.js';
import type { McpHttpServerConfig } from './mcp-config.js';
import { McpManager } from './mcp-manager.js';
import type { McpNotice } from './types.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(token?: string): Promise<McpHttpTestServer> {
  const server = await startMcpHttpServer(token === undefined ? {} : { token });
  cleanups.push(() => server.close());
  return server;
}

async function start(
  servers: Record<string, McpHttpServerConfig>,
  startTimeoutMs = 5_000,
): Promise<{ manager: McpManager; notices: McpNotice[] }> {
  const notices: McpNotice[] = [];
  const config = { servers: Object.entries(servers).map(([name, server]) => ({ name, config: server })) };
  const manager = await McpManager.start(config, { onNotice: (n) => notices.push(n), startTimeoutMs });
  cleanups.push(() => manager.close());
  return { manager, notices };
}

function http(url: string, headers: Record<string, string> = {}, trusted = false): McpHttpServerConfig {
  return { transport: 'http', url, headers, trusted };
}

/** A port that was free a moment ago: nothing listens on it. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const signal = () => new AbortController().signal;

describe('McpManager over streamable HTTP', () => {
  it('lists and calls tools end to end, sending the configured headers', async () => {
    const server = await serve('s3cret');
    const { manager, notices } = await start({ web: http(server.url, { Authorization: 'Bearer s3cret' }, true) });
    expect(notices).toEqual([]);
    expect(manager.status()).toEqual([{ name: 'web', state: 'running', transport: 'http', tools: 2 }]);
    const tools = manager.tools();
    expect(tools.map((t) => [t.spec.name, t.trusted])).toEqual([
      ['mcp__web__echo', true],
      ['mcp__web__fail', true],
    ]);
    expect(tools[0]?.spec.inputSchema).toMatchObject({ type: 'object', required: ['text'] });
    expect(await tools[0]!.call({ text: 'over http' }, signal())).toEqual({ output: 'web: over http', isError: false });
    expect(await tools[1]!.call({}, signal())).toEqual({ output: 'web tool failed', isError: true });
    expect(server.handled).toBeGreaterThanOrEqual(4);
  });

  it('fails a server that refuses the credentials, with one notice', async () => {
    const server = await serve('s3cret');
    const { manager, notices } = await start({ web: http(server.url, { Authorization: 'Bearer wrong' }) });
    expect(manager.status()[0]).toMatchObject({ state: 'failed', tools: 0 });
    expect(manager.tools()).toEqual([]);
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toMatch(/^MCP server 'web' failed to start: .*unauthorized/);
    expect(server.handled).toBe(0);
  });

  it('fails a server nobody listens for, while another works', async () => {
    const server = await serve();
    const port = await closedPort();
    const { manager, notices } = await start({
      gone: http(`http://127.0.0.1:${port}/mcp`),
      web: http(server.url),
    });
    expect(manager.status().map((s) => [s.name, s.state])).toEqual([
      ['gone', 'failed'],
      ['web', 'running'],
    ]);
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toMatch(/^MCP server 'gone' failed to start: .*ECONNREFUSED/);
    expect((await manager.tools()[0]!.call({ text: 'hi' }, signal())).output).toBe('web: hi');
  });

  it('returns an error value when the server goes away mid-session', async () => {
    const server = await serve();
    const { manager } = await start({ web: http(server.url) });
    const echo = manager.tools()[0]!;
    await server.close();
    const result = await echo.call({ text: 'anyone?' }, signal());
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^MCP server 'web' failed to run 'echo': fetch failed/);
  });
});
