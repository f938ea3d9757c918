import type { ClientState, SessionEvent, WebSocketConstructor } from '@tether/shared-protocol';
import {
  DeviceClient,
  isSessionEvent,
  parseShareLink,
  sealCall,
  secureRandom,
  systemClock,
  viewerIdentity,
  webSocketConnect,
} from '@tether/shared-protocol';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { connectDevice, pairDevice, until, waitForState } from '../../test/support/remote-device.js';
import { startTestHost } from '../../test/support/test-host.js';
import { Host } from '../host.js';

const SECRET = 'sk-live-abc123def456';
const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A browser's part, in Node: the link's key, its session, the host's WebSocket. */
function viewerFor(url: string) {
  const parsed = parseShareLink(url);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const link = parsed.value;
  const client = new DeviceClient({
    ...viewerIdentity(link),
    connect: webSocketConnect(
      `${link.base.replace(/^http/, 'ws')}/rc/ws`,
      WebSocket as unknown as WebSocketConstructor,
    ),
    backoff: { baseMs: 20, maxMs: 200 },
  });
  const events: SessionEvent[] = [];
  client.onEvent((e) => isSessionEvent(e) && events.push(e));
  const states: ClientState[] = [];
  client.onState((s) => states.push(s));
  client.start();
  stops.push(() => client.stop());
  return { client, events, link, states };
}

describe('a share link, end to end on real sockets', () => {
  it('lets its holder follow one session masked, and revoking it cuts them off within a second', async () => {
    const t = await startTestHost({ remote: { bind: '127.0.0.1', port: 0, roots: [] } });
    stops.push(() => t.close());
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const sessionId = created.value.id;
    await t.waitFor(sessionId, (e) => e.type === 'approval.requested');
    const phone = connectDevice(t, await pairDevice(t));
    stops.push(() => phone.client.stop());
    const made = await phone.client.call('share.create', { sessionId, expires: '1h', name: 'review' });
    if (!made.ok) throw new Error(made.error.message);
    expect(made.value.url.startsWith(`${t.url}/#view=1.`)).toBe(true);

    const viewer = viewerFor(made.value.url);
    const info = await viewer.client.call('host.info', {});
    expect(info.ok && info.value.view).toMatchObject({ sessionId, scope: `view:${sessionId}`, name: 'review' });
    viewer.client.watch(sessionId, 0);
    const before = t.events(sessionId).length;
    t.host.parts.log.append(sessionId, {
      type: 'notice',
      level: 'info',
      text: `curl -H "Authorization: Bearer ${SECRET}"`,
    });
    await until(() => viewer.events.length > before, 5000, 'the viewer to catch up');
    expect(viewer.events.map((e) => e.seq)).toEqual(t.events(sessionId).map((e) => e.seq));
    expect(JSON.stringify(viewer.events)).not.toContain(SECRET);
    expect(viewer.events.some((e) => e.type === 'approval.requested')).toBe(true);
    // It cannot answer the approval it sees, nor send, nor look at another session.
    const pending = t.host.parts.approvals.pending(sessionId)[0]!;
    for (const [method, params] of [
      ['approvals.answer', { id: pending.id, decision: 'allow-once' }],
      ['sessions.send', { id: sessionId, text: 'rm -rf /' }],
      ['sessions.list', {}],
      ['terminals.open', { cols: 80, rows: 24 }],
    ] as const) {
      const answer = await viewer.client.call(method, params);
      expect(answer.ok ? 'ok' : answer.error.code, method).toBe('forbidden');
    }
    // Nor as a one-shot call (what a notification action sends): its key is no device's.
    const call = sealCall(
      {
        ...viewerIdentity(viewer.link),
        clock: systemClock,
        random: secureRandom,
      },
      new TextEncoder().encode(JSON.stringify({ t: 'req', id: 1, method: 'approvals.answer', params: {} })),
    ).message;
    const oneShot = await fetch(`${t.url}/rc/call`, { method: 'POST', body: call });
    expect(oneShot.status).toBe(401);
    expect(t.host.parts.approvals.pending(sessionId)).toHaveLength(1);

    const listed = await phone.client.call('share.list', { sessionId });
    expect(listed.ok && listed.value.links).toEqual([expect.objectContaining({ viewers: 1, state: 'active' })]);
    const started = performance.now();
    const revoked = await phone.client.call('share.revoke', { id: made.value.link.id });
    expect(revoked.ok && revoked.value.closedConnections).toBe(1);
    await waitForState(viewer.client, 'refused', 1000);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(viewer.client.state).toMatchObject({ error: { code: 'revoked', message: 'this link was revoked' } });
    // Never again: the same key is refused at once, sealed.
    const again = viewerFor(made.value.url);
    await waitForState(again.client, 'refused', 5000);
  });

  it('is kept across a restart of the host', async () => {
    const port = await freePort();
    const t = await startTestHost({ remote: { bind: '127.0.0.1', port, roots: [] } });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const sessionId = created.value.id;
    // As `tether share SESSION` asks it, on the control socket.
    const made = await t.host.parts.controlHandlers['share.create']({ sessionId }, undefined as never);
    if (!made.ok) throw new Error(made.error.message);
    const viewer = viewerFor(made.value.url);
    viewer.client.watch(sessionId, 0);
    await waitForState(viewer.client, 'open');
    const dataDir = t.host.parts.paths.dir;
    await t.host.close();
    await until(() => viewer.client.state.name !== 'open', 5000, 'the viewer to notice');
    const restarted = await Host.start({
      dataDir,
      demoDelayMs: 0,
      keepAwake: { enabled: false },
      remote: { bind: '127.0.0.1', port, roots: [join(dataDir, '..')] },
      env: {},
    });
    if (!restarted.ok) throw new Error(restarted.error.message);
    stops.push(() => t.close());
    stops.push(() => restarted.value.close());
    await waitForState(viewer.client, 'open', 10_000);
    const seen = viewer.events.length;
    restarted.value.parts.log.append(sessionId, { type: 'notice', level: 'info', text: 'after the restart' });
    await until(() => viewer.events.length > seen, 5000, 'an event after the restart');
    expect(viewer.events.map((e) => e.seq)).toEqual(
      [...restarted.value.parts.log.readAll(sessionId)].map((e) => e.seq),
    );
  });
});
