import type { SessionEvent, TetherEvent, WebSocketConstructor } from '@tether/shared-protocol';
import {
  CloseCode,
  DeviceClient,
  FrameOpener,
  decodeChannelMessage,
  encodeChannelMessage,
  webSocketConnect,
  generateBoxKeyPair,
  systemClock,
} from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { PairedDevice } from '../../test/support/remote-device.js';
import { handshakeRaw, initiator, rawSocket, wsUrl } from '../../test/support/raw-channel.js';
import { connectDevice, pairDevice, until, waitForState } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';

let t: TestHost | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
  await t?.close();
  t = undefined;
});

async function setup() {
  t = await startTestHost({ remote: LOCAL_REMOTE, demoDelayMs: 0 });
  return t;
}

/** A raw socket to the host, terminated after the test. */
function raw(t: TestHost, headers: Record<string, string> = {}) {
  const socket = rawSocket(t, headers);
  cleanups.push(() => socket.ws.terminate());
  return socket;
}

async function healthy(t: TestHost, device: PairedDevice) {
  const { client } = connectDevice(t, device);
  cleanups.push(() => client.stop());
  const info = await client.call('host.info', {});
  expect(info.ok).toBe(true);
  client.stop();
}

const sessionEvents = (events: TetherEvent[], id: string) =>
  events.filter((e): e is SessionEvent => 'seq' in e && e.sessionId === id);

describe('the sealed channel', () => {
  it('lets a paired device create a session, watch it stream, and answer its approval', async () => {
    const t = await setup();
    const device = await pairDevice(t);
    const { client, events } = connectDevice(t, device);
    cleanups.push(() => client.stop());
    const info = await client.call('host.info', {});
    expect(info.ok && info.value).toMatchObject({
      hostId: t.host.parts.identity.hostId,
      deviceId: device.reply.deviceId,
      models: ['demo'],
    });
    const created = await client.call('sessions.create', { cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.session.id;
    expect(client.watch(id, 0).ok).toBe(true);
    // From here the session's events come in order from 1; what came before was the list stream.
    events.length = 0;
    const requested = await until(() => sessionEvents(events, id).find((e) => e.type === 'approval.requested'));
    if (requested.type !== 'approval.requested') throw new Error('unreachable');
    const answered = await client.call('approvals.answer', { id: requested.approval.id, decision: 'allow-once' });
    expect(answered.ok && answered.value.approval.answeredBy).toMatchObject({
      kind: 'device',
      id: device.reply.deviceId,
    });
    await until(() => sessionEvents(events, id).find((e) => e.type === 'run.finished'));
    const seen = sessionEvents(events, id).map((e) => e.seq);
    expect(seen).toEqual(t.events(id).map((e) => e.seq));
  });

  it('refuses an unknown device at the handshake, a revoked one after it, and stays healthy', async () => {
    const t = await setup();
    const device = await pairDevice(t);
    const stranger: PairedDevice = {
      ...device,
      keys: generateBoxKeyPair(),
      reply: { ...device.reply, deviceId: 'AAAAAAAAAAAAAAAAAAAAAA' },
    };
    const a = raw(t);
    await a.opened;
    a.ws.send(initiator(stranger).hello());
    expect((await a.closed).code).toBe(CloseCode.HandshakeFailed);

    t.host.parts.devices.revoke(device.reply.deviceId, Date.now());
    const b = await handshakeRaw(device, raw(t));
    const closed = await b.closed;
    expect(closed.code).toBe(CloseCode.Revoked);
    expect(b.received).toHaveLength(1);
    const opener = new FrameOpener(b.keys.receive);
    const bye = opener.open(b.received[0]!);
    expect(bye.ok && decodeChannelMessage(bye.value)).toMatchObject({ t: 'bye', code: 'revoked' });
    const other = await pairDevice(t, { label: 'other' });
    await healthy(t, other);
  });

  it('refuses a stale timestamp and a replayed hello', async () => {
    const t = await setup();
    const device = await pairDevice(t);
    const stale = raw(t);
    await stale.opened;
    stale.ws.send(initiator(device, { ...systemClock, now: () => Date.now() - 10 * 60_000 }).hello());
    expect((await stale.closed).code).toBe(CloseCode.HandshakeStale);

    const first = await handshakeRaw(device, raw(t));
    const replay = raw(t);
    await replay.opened;
    replay.ws.send(first.hello);
    expect((await replay.closed).code).toBe(CloseCode.HandshakeReplayed);
    expect(t.host.parts.gateway.stats.get('handshake:handshake-replayed')).toBe(1);
    await healthy(t, device);
  });

  it('does not give up on a host when a LAN attacker races a copy of its hello', async () => {
    const t = await setup();
    const device = await pairDevice(t);
    // The attacker sees the phone's hello on the wire and gets a copy to the host first; the
    // phone's own hello then looks replayed. Only the first connection attempt is raced.
    let raced = false;
    const url = wsUrl(t);
    const connect = webSocketConnect(url, WebSocket as unknown as WebSocketConstructor);
    const client = new DeviceClient({
      deviceId: device.reply.deviceId,
      deviceKeys: device.keys,
      hostBoxPublicKey: device.hostBoxPublicKey,
      backoff: { baseMs: 20, maxMs: 200 },
      connect: async () => {
        const transport = await connect();
        if (raced) return transport;
        raced = true;
        const send = transport.send.bind(transport);
        transport.send = (hello) => {
          const copy = raw(t);
          void copy.opened.then(async () => {
            copy.ws.send(hello);
            await until(() => copy.received.length > 0, 5000, "the copy's welcome");
            send(hello);
          });
        };
        return transport;
      },
    });
    cleanups.push(() => client.stop());
    client.start();
    await waitForState(client, 'open', 10_000);
    expect(t.host.parts.gateway.stats.get('handshake:handshake-replayed')).toBe(1);
    expect((await client.call('host.info', {})).ok).toBe(true);
  });

  it('says "revoked" to a revoked device only inside a sealed goodbye, and a forged close is retried', async () => {
    const t = await setup();
    const device = await pairDevice(t);
    t.host.parts.devices.revoke(device.reply.deviceId, Date.now());
    const { client } = connectDevice(t, device);
    cleanups.push(() => client.stop());
    await waitForState(client, 'refused');
    expect(client.state.name === 'refused' && client.state.error.code).toBe('revoked');
  });

  it('closes on a tampered frame and acts on nothing after it', async () => {
    const t = await setup();
    const device = await pairDevice(t);
    const s = await handshakeRaw(device, raw(t));
    const frame = s.sealer.seal(
      encodeChannelMessage({ t: 'req', id: 1, method: 'sessions.create', params: { cwd: t.project, text: 'x' } }),
    );
    if (!frame.ok) throw new Error('seal');
    const tampered = frame.value.slice();
    tampered[tampered.length - 3]! ^= 0x10;
    s.ws.send(tampered);
    expect((await s.closed).code).toBe(CloseCode.ProtocolError);
    expect(t.host.parts.sessions.list()).toEqual([]);
    expect(t.host.parts.gateway.stats.get('frame:frame-tampered')).toBe(1);
    await healthy(t, device);
  });

  it('refuses text messages and garbage before the handshake', async () => {
    const t = await setup();
    const s = raw(t);
    await s.opened;
    s.ws.send('hello');
    expect((await s.closed).code).toBe(CloseCode.ProtocolError);
    const g = raw(t);
    await g.opened;
    g.ws.send(Buffer.from([9, 9, 9]));
    expect((await g.closed).code).toBe(CloseCode.HandshakeFailed);
  });

  it('checks scopes: a watch,approve device can follow and answer but not chat', async () => {
    const t = await setup();
    const owner = await pairDevice(t);
    const watcher = await pairDevice(t, { scopes: ['watch', 'approve'] });
    const { client: ownerClient } = connectDevice(t, owner);
    const { client } = connectDevice(t, watcher);
    cleanups.push(
      () => ownerClient.stop(),
      () => client.stop(),
    );
    const created = await ownerClient.call('sessions.create', { cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    expect((await client.call('sessions.list', {})).ok).toBe(true);
    const send = await client.call('sessions.send', { id: created.value.session.id, text: 'x' });
    expect(!send.ok && send.error.code).toBe('forbidden');
    const create = await client.call('sessions.create', { cwd: t.project, text: 'x' });
    expect(!create.ok && create.error.code).toBe('forbidden');
    const approval = await until(() => t.host.parts.approvals.pending()[0]);
    expect((await client.call('approvals.answer', { id: approval.id, decision: 'deny' })).ok).toBe(true);
    const list = await client.call('devices.list', {});
    expect(!list.ok && list.error.code).toBe('forbidden');
    const terminal = await client.call('terminals.open', { cols: 80, rows: 24 });
    expect(!terminal.ok && terminal.error.code).toBe('forbidden');
  });

  it('gives one approval with its session title, pending or answered, for the card a notification opens', async () => {
    const t = await setup();
    const device = await pairDevice(t, { scopes: ['watch'] });
    const { client } = connectDevice(t, device);
    cleanups.push(() => client.stop());
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'List the files\nplease' });
    if (!created.ok) throw new Error(created.error.message);
    const approval = await until(() => t.host.parts.approvals.pending()[0]);
    const pending = await client.call('approvals.get', { id: approval.id });
    expect(pending.ok && pending.value).toMatchObject({
      approval: { id: approval.id, status: 'pending', action: 'ls -la' },
      sessionTitle: 'List the files',
    });
    t.host.parts.approvals.answer(approval.id, { decision: 'deny' }, { kind: 'local', label: 'this computer' });
    const answered = await client.call('approvals.get', { id: approval.id });
    expect(answered.ok && answered.value.approval).toMatchObject({
      status: 'denied',
      answeredBy: { kind: 'local', label: 'this computer' },
    });
    const missing = await client.call('approvals.get', { id: 'a_nope' });
    expect(!missing.ok && missing.error.code).toBe('not-found');
  });

  it('answers bad params and outside folders with stable codes', async () => {
    const t = await setup();
    const { client } = connectDevice(t, await pairDevice(t));
    cleanups.push(() => client.stop());
    const bad = await client.call('sessions.create', { cwd: '', text: 'x' });
    expect(!bad.ok && bad.error.code).toBe('invalid-params');
    const outside = await client.call('sessions.create', { cwd: '/etc', text: 'x' });
    expect(!outside.ok && outside.error.code).toBe('forbidden');
    const model = await client.call('sessions.create', {
      cwd: t.project,
      text: 'x',
      model: 'openai-compatible:x@http://10.0.0.1/v1',
    });
    expect(!model.ok && model.error.code).toBe('invalid-params');
    const dirs = await client.call('fs.listDirs', {});
    expect(dirs.ok && dirs.value.dirs.length).toBe(1);
    const sub = await client.call('fs.listDirs', { path: dirs.ok ? dirs.value.dirs[0]!.path : '' });
    expect(sub.ok && sub.value.dirs.map((d) => d.name)).toEqual(expect.arrayContaining(['project']));
    const up = await client.call('fs.listDirs', { path: '/' });
    expect(!up.ok && up.error.code).toBe('forbidden');
  });

  it('closes a revoked device at once and tells it why', async () => {
    const t = await setup();
    const device = await pairDevice(t);
    const { client } = connectDevice(t, device);
    cleanups.push(() => client.stop());
    await waitForState(client, 'open');
    t.host.parts.devices.revoke(device.reply.deviceId, Date.now());
    expect(t.host.parts.gateway.hub.disconnectDevice(device.reply.deviceId)).toBe(1);
    await waitForState(client, 'refused');
    expect(client.state.name === 'refused' && client.state.error.code).toBe('revoked');
  });

  it('lets a device unpair itself, and only admins revoke others', async () => {
    const t = await setup();
    const a = await pairDevice(t);
    const b = await pairDevice(t, { label: 'b' });
    const { client } = connectDevice(t, a);
    cleanups.push(() => client.stop());
    const other = await client.call('devices.revoke', { id: b.reply.deviceId });
    expect(!other.ok && other.error.code).toBe('forbidden');
    expect((await client.call('devices.revoke', { id: a.reply.deviceId })).ok).toBe(true);
    await waitForState(client, 'refused', 2000);
    expect(t.host.parts.devices.get(a.reply.deviceId)?.revoked).toBe(true);
  });

  it('refuses a WebSocket for another Host or from another Origin', async () => {
    const t = await setup();
    const badOrigin = raw(t, { Origin: 'https://evil.example' });
    expect((await badOrigin.closed).code).not.toBe(1000);
    const badHost = raw(t, { Host: 'evil.example:80' });
    expect((await badHost.closed).code).not.toBe(1000);
    expect(t.host.parts.gateway.stats.get('ws:bad-origin')).toBe(1);
    expect(t.host.parts.gateway.stats.get('ws:bad-host')).toBe(1);
    const goodOrigin = raw(t, { Origin: t.url });
    await goodOrigin.opened;
  });
});
