import type { SessionEvent } from '@tether/shared-protocol';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../../../test/fakes/fake-anthropic-server.js';
import type { TestHost } from '../../../test/support/test-host.js';
import { startTestHost } from '../../../test/support/test-host.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../../test/fixtures/${name}`, import.meta.url));

let t: TestHost | undefined;
let fake: FakeAnthropicServer | undefined;

afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = fake = undefined;
});

describe('MCP tools in a session', () => {
  it('offers MCP tools, asks before untrusted ones, and isolates a server that fails to start', async () => {
    fake = new FakeAnthropicServer();
    const url = await fake.start();
    const configPath = join(tmpdir(), `mcp-${process.pid}-${Date.now()}.json`);
    writeFileSync(
      configPath,
      JSON.stringify({
        mcpServers: {
          echo: { command: process.execPath, args: [fixture('mcp-echo-server.mjs')] },
          trusted: { command: process.execPath, args: [fixture('mcp-echo-server.mjs')], trusted: true },
          broken: { command: process.execPath, args: [fixture('mcp-crash-at-start.mjs')] },
        },
      }),
    );
    t = await startTestHost({
      env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url },
      model: 'anthropic:m',
      mcpConfig: configPath,
    });
    fake.enqueue(
      { toolCalls: [{ name: 'mcp__trusted__echo', argumentChunks: ['{"text":"no need to ask"}'] }] },
      { toolCalls: [{ name: 'mcp__echo__echo', argumentChunks: ['{"text":"hello mcp"}'] }] },
      { text: ['done'] },
    );
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'use mcp' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    const requested = (await t.waitFor(id, (e) => e.type === 'approval.requested')) as Extract<
      SessionEvent,
      { type: 'approval.requested' }
    >;
    expect(requested.approval).toMatchObject({ tool: 'mcp__echo__echo', kind: 'mcp' });
    expect(requested.approval.action).toContain('"text": "hello mcp"');
    t.host.parts.approvals.answer(requested.approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    await t.waitFor(id, (e) => e.type === 'run.finished');

    const events = t.events(id);
    const finished = events.filter(
      (e): e is Extract<SessionEvent, { type: 'tool.finished' }> => e.type === 'tool.finished',
    );
    expect(finished.map((e) => [e.tool, e.ok, e.output])).toEqual([
      ['mcp__trusted__echo', true, 'no need to ask'],
      ['mcp__echo__echo', true, 'hello mcp'],
    ]);
    const notice = events.find((e): e is Extract<SessionEvent, { type: 'notice' }> => e.type === 'notice');
    expect(notice?.text).toMatch(/MCP server 'broken' failed to start/);
    const offered = (fake.requests[0] as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(['shell', 'mcp__echo__echo', 'mcp__trusted__echo']));
    expect(offered.some((name) => name.startsWith('mcp__broken'))).toBe(false);
  });
});
