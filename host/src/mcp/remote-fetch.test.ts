/**
 * Remote MCP servers through the real SDK client transport, against real servers on 127.0.0.1:
 * two servers on different ports are two origins.
 */
import dns from 'node:dns';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHost } from '../../test/support/test-host.js';
import { startMcpHttpServer } from '../../test/fixtures/mcp-http-server.js';
import type { McpHttpTestServer } from '../../test/fixtures/mcp-http-server.js';
import { decodeMcpConfig } from './mcp-config.js';
import { McpManager } from './mcp-manager.js';
import { isLoopbackHost, MAX_REDIRECTS, remoteUrlProblem } from './remote-fetch.js';
import type { McpNotice } from './types.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(options: Parameters<typeof startMcpHttpServer>[0] = {}): Promise<McpHttpTestServer> {
  const server = await startMcpHttpServer(options);
  cleanups.push(() => server.close());
  return server;
}

async function connect(url: string, headers: Record<string, string>) {
  const notices: McpNotice[] = [];
  const manager = await McpManager.start(
    { servers: [{ name: 'web', config: { transport: 'http', url, headers, trusted: false } }] },
    { onNotice: (n) => notices.push(n), startTimeoutMs: 5_000 },
  );
  cleanups.push(() => manager.close());
  return { manager, notices };
}

const SECRETS = { Authorization: 'Bearer s3cret', 'X-Api-Key': 'k3y' };

describe('remote MCP server rules', () => {
  it('takes https, and http only to loopback; never credentials in the URL', () => {
    expect(remoteUrlProblem('https://mcp.example.com/mcp')).toBeUndefined();
    expect(remoteUrlProblem('http://127.0.0.1:8080/mcp')).toBeUndefined();
    expect(remoteUrlProblem('http://localhost/mcp')).toBeUndefined();
    expect(remoteUrlProblem('http://[::1]:3000/mcp')).toBeUndefined();
    expect(remoteUrlProblem('http://mcp.example.com/mcp')).toMatch(/must be https:\/\//);
    expect(remoteUrlProblem('http://10.0.0.2/mcp')).toMatch(/must be https:\/\//);
    expect(remoteUrlProblem('https://user:pw@mcp.example.com/mcp')).toMatch(/must not hold credentials/);
    expect(remoteUrlProblem('ftp://x')).toMatch(/http:\/\/ or https:\/\//);
    expect(isLoopbackHost('127.4.5.6')).toBe(true);
    expect(isLoopbackHost('127.0.0.1.example.com')).toBe(false);
  });

  it('refuses such a URL in the config file, naming the entry', () => {
    const cleartext = decodeMcpConfig(JSON.stringify({ mcpServers: { a: { url: 'http://mcp.example.com' } } }), '/');
    expect(cleartext.ok ? '' : cleartext.error.message).toMatch(/^mcpServers\.a\.url: must be https:\/\//);
    const userinfo = decodeMcpConfig(JSON.stringify({ mcpServers: { a: { url: 'https://u:p@x.example' } } }), '/');
    expect(userinfo.ok ? '' : userinfo.error.message).toMatch(/^mcpServers\.a\.url: must not hold credentials/);
  });

  it('keeps the headers on a redirect within the origin', async () => {
    const server = await serve({ token: 's3cret', redirects: { '/old': '/mcp' } });
    const { manager, notices } = await connect(server.url.replace('/mcp', '/old'), SECRETS);
    expect(notices).toEqual([]);
    expect(manager.status()[0]).toMatchObject({ state: 'running', tools: 2 });
    expect(server.handled).toBeGreaterThan(0);
  });

  it('drops every credential the moment a redirect leaves the origin', async () => {
    const other = await serve();
    const origin = await serve({ token: 's3cret', redirects: { '/mcp': other.url } });
    const { manager, notices } = await connect(origin.url, SECRETS);
    expect(notices).toEqual([]);
    expect(manager.status()[0]).toMatchObject({ state: 'running' });
    expect((await manager.tools()[0]!.call({ text: 'hop' }, new AbortController().signal)).output).toBe('web: hop');
    expect(origin.seen.length).toBeGreaterThan(0);
    for (const headers of origin.seen) expect(headers['x-api-key']).toBe('k3y');
    expect(other.seen.length).toBeGreaterThan(0);
    for (const headers of other.seen) {
      expect(headers.authorization).toBeUndefined();
      expect(headers['x-api-key']).toBeUndefined();
      expect(headers['mcp-session-id']).toBeUndefined();
    }
  });

  it('refuses a redirect to cleartext http off loopback, and starts nothing', async () => {
    const origin = await serve({ redirects: { '/mcp': 'http://mcp.example.com/mcp' } });
    const { manager, notices } = await connect(origin.url, SECRETS);
    expect(manager.status()[0]).toMatchObject({ state: 'failed', tools: 0 });
    expect(manager.tools()).toEqual([]);
    expect(notices.map((n) => n.text)).toEqual([
      expect.stringMatching(
        /^MCP server 'web' failed to start: .*redirected to cleartext http:\/\/mcp\.example\.com\/mcp; refused/,
      ),
    ]);
    expect(notices[0]!.text).not.toContain('s3cret');
  });

  it('connects a localhost name to loopback, whatever a resolver answers for it', async () => {
    const server = await serve({ token: 's3cret' });
    const port = Number(new URL(server.url).port);
    // Another address, standing for one elsewhere, and a resolver that sends `*.localhost` there
    // (glibc asks DNS for such names; a hostile or misconfigured resolver answers what it likes).
    const elsewhere = await serve({ host: '127.0.0.2', port });
    const asked: string[] = [];
    const systemLookup = dns.lookup;
    const lying = (hostname: string, options: unknown, callback?: unknown) => {
      const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
      asked.push(hostname);
      if ((options as { all?: boolean } | undefined)?.all) done(null, [{ address: '127.0.0.2', family: 4 }]);
      else done(null, '127.0.0.2', 4);
    };
    dns.lookup = lying as typeof dns.lookup;
    cleanups.push(() => Promise.resolve(void (dns.lookup = systemLookup)));
    for (const name of ['localhost', 'mcp.localhost', 'MCP.LOCALHOST']) {
      const { manager, notices } = await connect(`http://${name}:${port}/mcp`, SECRETS);
      expect(notices, name).toEqual([]);
      expect(manager.status()[0], name).toMatchObject({ state: 'running', tools: 2 });
    }
    expect(elsewhere.seen).toEqual([]);
    expect(server.handled).toBeGreaterThan(0);
    expect(asked).toEqual([]);
  });

  it('ends a redirect loop with a clear error', async () => {
    const origin = await serve({ redirects: { '/mcp': '/mcp' } });
    const { manager, notices } = await connect(origin.url, {});
    expect(manager.status()[0]).toMatchObject({ state: 'failed' });
    expect(notices.map((n) => n.text)).toEqual([
      expect.stringMatching(new RegExp(`redirected more than ${MAX_REDIRECTS} times \\(a redirect loop\\?\\)`)),
    ]);
    // The first request and MAX_REDIRECTS hops; nothing more.
    expect(origin.seen.length).toBe(MAX_REDIRECTS + 1);
  });
});

describe('a redirect loop, where the person looks', () => {
  it("is a notice in the session's transcript; no tool of it is offered and the session goes on", async () => {
    const origin = await serve({ redirects: { '/mcp': '/mcp' } });
    const base = mkdtempSync(join(tmpdir(), 'tether-loop-'));
    cleanups.push(() => Promise.resolve(rmSync(base, { recursive: true, force: true })));
    const config = join(base, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { looping: { url: origin.url } } }));
    const printed: McpNotice[] = [];
    const t = await startTestHost({ model: 'demo', mcpConfig: config, onNotice: (n) => printed.push(n) });
    cleanups.push(() => t.close());
    // The terminal running tether start says it.
    expect(printed.map((n) => n.text)).toEqual([
      expect.stringMatching(/^MCP server 'looping' failed to start: .*redirect loop/),
    ]);
    expect(t.host.parts.mcp.tools()).toEqual([]);
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hi' });
    if (!created.ok) throw new Error(created.error.message);
    // The demo model answers and proposes its command: the run went on without the server.
    await t.waitFor(created.value.id, (e) => e.type === 'approval.requested');
    const notices = t.events(created.value.id).flatMap((e) => (e.type === 'notice' ? [e.text] : []));
    expect(notices).toEqual([
      expect.stringMatching(
        new RegExp(`^MCP server 'looping' failed to start: .*redirected more than ${MAX_REDIRECTS} times`),
      ),
    ]);
  });
});
