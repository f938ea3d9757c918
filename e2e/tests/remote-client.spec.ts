import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent, TetherEvent, WebSocketConstructor } from '@tether/shared-protocol';
import { DeviceClient, fromBase64UrlExact, parsePairingLink, webSocketConnect } from '@tether/shared-protocol';
import { expect, test } from '@playwright/test';
import { WebSocket } from 'ws';
import { eventually, makeDataDir, removeDataDir, startHost, tether, tetherJson } from '../support/host-process.js';
import { pairFromNode } from '../support/pair-client.js';

test('a Node client pairs (allowed from the CLI), follows a session, answers its approval and resumes after a drop', async () => {
  const dataDir = makeDataDir();
  const project = join(dataDir, 'project');
  mkdirSync(project);
  // Slow enough that the reply is still streaming when the connection is cut.
  const host = await startHost(dataDir, ['--bind', '127.0.0.1', '--port', '0', '--root', dataDir], {
    TETHER_DEMO_DELAY_MS: '60',
  });
  const sockets: WebSocket[] = [];
  let client: DeviceClient | undefined;
  try {
    const listening = await host.waitFor((l) => l.event === 'listening');
    const link = parsePairingLink(String(listening.pairUrl));
    if (!link.ok) throw new Error(link.error.message);
    const pairing = pairFromNode(String(listening.url), link.value, 'e2e client');
    const keys = pairing.keys;
    const request = await host.waitFor((l) => l.event === 'pair.request');
    expect(request.code).toBe(await pairing.code);
    const listed = await tetherJson<{ id: string; code: string }[]>(dataDir, ['pair', 'requests']);
    expect(listed).toEqual([expect.objectContaining({ id: request.id, code: request.code })]);
    expect((await tether(dataDir, ['pair', 'allow', String(request.id)])).code).toBe(0);
    const reply = await pairing.done;
    if (!reply.ok) throw new Error(reply.error.message);

    class TrackedWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        sockets.push(this);
      }
    }
    client = new DeviceClient({
      deviceId: reply.value.deviceId,
      deviceKeys: keys,
      hostBoxPublicKey: fromBase64UrlExact(reply.value.hostBoxPublicKey, 32)!,
      connect: webSocketConnect(
        `${String(listening.url).replace('http', 'ws')}/rc/ws`,
        TrackedWebSocket as unknown as WebSocketConstructor,
      ),
      backoff: { baseMs: 50, maxMs: 500 },
    });
    const events: TetherEvent[] = [];
    client.onEvent((e) => events.push(e));
    client.start();

    const created = await client.call('sessions.create', { cwd: project, text: 'hello from e2e' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.session.id;
    client.watch(id, 0);
    events.length = 0;
    const ofSession = () => events.filter((e): e is SessionEvent => 'seq' in e && e.sessionId === id);

    // Cut the connection while the reply streams; the client reconnects and resumes.
    await eventually(() => (ofSession().some((e) => e.type === 'message.delta') ? true : undefined));
    sockets[sockets.length - 1]!.terminate();
    const approval = await eventually(() => {
      const found = ofSession().find((e) => e.type === 'approval.requested');
      return found?.type === 'approval.requested' ? found.approval : undefined;
    });
    expect(sockets.length).toBeGreaterThan(1);
    const answered = await client.call('approvals.answer', { id: approval.id, decision: 'allow-once' });
    expect(answered.ok).toBe(true);
    await eventually(() => (ofSession().some((e) => e.type === 'run.finished') ? true : undefined));

    const log = await tetherJson<SessionEvent[]>(dataDir, ['sessions', 'show', id]);
    const lastDelivered = client.lastSeq(id)!;
    expect(ofSession().map((e) => e.seq)).toEqual(Array.from({ length: lastDelivered }, (_, i) => i + 1));
    expect(ofSession()).toEqual(log.slice(0, lastDelivered));
    const devices = await tetherJson<{ label: string; revoked: boolean }[]>(dataDir, ['devices']);
    expect(devices).toEqual([expect.objectContaining({ label: 'e2e client', revoked: false })]);
  } finally {
    client?.stop();
    await host.stop();
    removeDataDir(dataDir);
  }
});
