import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestHost } from '../../../test/support/test-host.js';
import {
  assistantText,
  eventsOf,
  nthApproval,
  runFinished,
  startAcpTestHost,
  startAgentSession,
} from '../../../test/support/acp-test-host.js';
import { MAX_ACP_MESSAGE_BYTES } from './acp-connection.js';
import { MAX_PERMISSION_OPTIONS } from './acp-permission.js';
import { MAX_UPDATE_BURST, UPDATES_PER_SECOND } from './acp-update-log.js';

const HOSTILE = fileURLToPath(new URL('../../../test/fixtures/acp-hostile-agent.mjs', import.meta.url));

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function setup(): Promise<TestHost> {
  const started = await startAcpTestHost({
    agents: { hostile: { title: 'Hostile', command: process.execPath, args: [HOSTILE] } },
  });
  close = started.close;
  return started.host;
}

const start = (host: TestHost, text: string) => startAgentSession(host, text, 'hostile');
const notices = (host: TestHost, id: string) => eventsOf(host, id, 'notice').map((e) => e.text);

/** After whatever the agent did, the session takes the next message (a new agent process if need be). */
async function carriesOn(host: TestHost, id: string, runs: number): Promise<void> {
  host.host.parts.sessions.send(id, 'say still here');
  expect((await runFinished(host, id, runs + 1)).status).toBe('done');
  expect(assistantText(host, id)).toContain('still here');
  expect(host.host.parts.sessions.get(id)?.status).toBe('idle');
}

describe('a hostile ACP agent', () => {
  it('calling a method the client does not have gets “method not found”', async () => {
    const host = await setup();
    const id = await start(host, 'unknown-method');
    expect((await runFinished(host, id)).status).toBe('done');
    expect(assistantText(host, id)).toContain('unknown-method: error -32601');
    await carriesOn(host, id, 1);
  });

  it('a message over the size limit ends the agent with a notice; the session carries on', async () => {
    const host = await setup();
    const id = await start(host, `huge-line ${MAX_ACP_MESSAGE_BYTES + 1024}`);
    const end = await runFinished(host, id);
    expect(end.status).toBe('error');
    expect(end.error).toBe(
      `Hostile stopped: it was ended by SIGTERM after Incoming ACP data exceeds the configured ${MAX_ACP_MESSAGE_BYTES} byte limit`,
    );
    expect(notices(host, id)).toContain('Hostile wrote nothing to stderr.');
    await carriesOn(host, id, 1);
  });

  it('a flood of message chunks is coalesced into a few events', async () => {
    const host = await setup();
    const id = await start(host, 'flood-chunks 20000\nsay after the flood');
    expect((await runFinished(host, id)).status).toBe('done');
    const text = assistantText(host, id);
    expect(text).toContain('y'.repeat(20000));
    expect(text).toContain('after the flood');
    expect(eventsOf(host, id, 'message.delta').length).toBeLessThan(200);
    await carriesOn(host, id, 1);
  });

  it('a flood of tool calls past the bound ends the agent with a notice', async () => {
    const host = await setup();
    const id = await start(host, `flood-tools ${MAX_UPDATE_BURST * 3}`);
    const end = await runFinished(host, id);
    expect(end.status).toBe('error');
    expect(notices(host, id)).toContain(
      `Hostile sent more than ${MAX_UPDATE_BURST} updates at once (over ${UPDATES_PER_SECOND} a second); it was stopped.`,
    );
    expect(eventsOf(host, id, 'tool.started').length).toBeLessThan(MAX_UPDATE_BURST * 2);
    await carriesOn(host, id, 1);
  });

  it('a terminal outside the session folder is refused with invalid params and a notice', async () => {
    const host = await setup();
    const id = await start(host, 'terminal-outside /etc\nterminal-outside ../..');
    expect((await runFinished(host, id)).status).toBe('done');
    expect(assistantText(host, id).match(/terminal-outside: error -32602/g)).toHaveLength(2);
    expect(notices(host, id).filter((text) => text.includes('outside the session folder'))).toHaveLength(2);
    expect(eventsOf(host, id, 'approval.requested')).toHaveLength(0);
    await carriesOn(host, id, 1);
  });

  it('a permission request with 1,000 options is refused with invalid params and a notice', async () => {
    const host = await setup();
    const id = await start(host, 'many-options 1000');
    expect((await runFinished(host, id)).status).toBe('done');
    expect(assistantText(host, id)).toContain('many-options: error -32602');
    expect(notices(host, id)).toContain(
      `Hostile asked permission with 1000 options (at most ${MAX_PERMISSION_OPTIONS}); it was refused.`,
    );
    expect(eventsOf(host, id, 'approval.requested')).toHaveLength(0);
    await carriesOn(host, id, 1);
  });

  it('a permission request with a 1 MB title is refused with a notice, never shown cut', async () => {
    const host = await setup();
    const id = await start(host, 'huge-title 1048576');
    expect((await runFinished(host, id)).status).toBe('done');
    expect(assistantText(host, id)).toContain('huge-title: ok {"outcome":{"outcome":"selected","optionId":"no"}}');
    expect(notices(host, id).join('\n')).toContain('too large to show for approval');
    expect(eventsOf(host, id, 'approval.requested')).toHaveLength(0);
    await carriesOn(host, id, 1);
  });

  it('a permission request with a few options still asks', async () => {
    const host = await setup();
    const id = await start(host, `many-options ${MAX_PERMISSION_OPTIONS}`);
    const approval = await nthApproval(host, id);
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    expect((await runFinished(host, id)).status).toBe('done');
    expect(assistantText(host, id)).toContain('many-options: ok {"outcome":{"outcome":"selected","optionId":"o0"}}');
  });
});
