import type { MethodName, Methods, SessionSummary } from '@tether/shared-protocol';
import {
  CloseCode,
  METHODS,
  PROTOCOL_VERSION,
  SHARE_EXPIRY_MS,
  VIEW_METHODS,
  fail,
  ok,
  viewerKeyPair,
} from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { gatewayHarness, settle } from '../../test/support/gateway-harness.js';
import { MAX_CONNECTIONS_PER_ADDRESS, PATH_ROOM_FOR_DEVICES } from '../gateway/device-gateway.js';
import type { Caller } from '../rpc/caller.js';
import type { Handlers } from '../rpc/dispatch.js';
import { HIGH_WATER_BYTES } from '../streams/outbox.js';

const SECRET_COMMAND = 'curl -H "Authorization: Bearer sk-live-abc123def456" https://api.example.com';

/**
 * A host whose every method answers, so that a refusal can only come from the viewer's checks:
 * a method a viewer may not call is one its handler never sees.
 */
function harness() {
  const reached: string[] = [];
  const handlers: Partial<Handlers<Methods, Caller>> = {};
  const table = handlers as Record<string, unknown>;
  for (const method of Object.keys(METHODS)) {
    table[method] = () => {
      reached.push(method);
      return fail('not-found', 'reached the handler');
    };
  }
  const built: { h?: ReturnType<typeof gatewayHarness> } = {};
  const summary = (id: string): SessionSummary => built.h!.sessions.summary(built.h!.sessions.get(id)!);
  Object.assign(handlers, {
    'host.info': (_p: unknown, caller: Caller) =>
      ok({
        hostId: built.h!.identity.hostId,
        name: 'desk',
        version: '1',
        protocolVersion: PROTOCOL_VERSION,
        deviceId: caller.device.id,
        scopes: caller.device.scopes,
        features: ['terminals'],
        models: ['demo'],
        defaultModel: 'demo',
        roots: ['/home/me/secret-projects'],
      }),
    'sessions.watch': ({ id, after }: { id: string; after: number }, caller: Caller) => {
      caller.connection!.watch(id, after);
      return ok({ session: summary(id) });
    },
    'sessions.unwatch': () => ok({}),
    'sessions.history': () => ok({ events: [], after: 0, lastSeq: 0 }),
  } satisfies Partial<Handlers<Methods, Caller>>);
  const h = (built.h = gatewayHarness(handlers));
  h.session('s1');
  h.session('s2');
  return { ...h, reached };
}

function makeLink(h: ReturnType<typeof harness>, includePhotos = false, sessionId = 's1') {
  const made = h.shares.create({ sessionId, includePhotos, createdBy: 'this computer' });
  if (!made.ok) throw new Error(made.error.message);
  return { id: made.value.record.id, keys: viewerKeyPair(made.value.secret) };
}

const sessionField = (method: MethodName) => VIEW_METHODS[method];

/** A phone and a link's viewer, both following s1 from its start. */
async function phoneAndViewer(h: ReturnType<typeof harness>) {
  const link = makeLink(h);
  const phone = await h.connect();
  const viewer = await h.connectViewer(link.id, link.keys);
  await phone.request('sessions.watch', { id: 's1', after: 0 });
  await viewer.request('sessions.watch', { id: 's1', after: 0 });
  for (let i = 0; i < 3; i++) await settle();
  return { phone, viewer };
}

describe("a share link's viewer", () => {
  it('is refused `forbidden` for every method of the table but following its own session', async () => {
    const h = harness();
    const link = makeLink(h);
    const viewer = await h.connectViewer(link.id, link.keys);
    for (const method of Object.keys(METHODS) as MethodName[]) {
      const field = sessionField(method);
      const answer = await viewer.request(method, field ? { [field]: 's2', id: 's2', after: 0 } : {});
      if (method === 'host.info') {
        expect(answer, method).toMatchObject({ result: { scopes: [], view: { sessionId: 's1', scope: 'view:s1' } } });
        continue;
      }
      // Any other method, any other session, and (without photos) any attachment.
      expect(answer, method).toMatchObject({ error: { code: 'forbidden' } });
    }
    expect(h.reached).toEqual([]);
    // Its own session, it may follow; nothing of the host's folders or models is said to it.
    expect(await viewer.request('sessions.watch', { id: 's1', after: 0 })).toMatchObject({ result: {} });
    expect(await viewer.request('sessions.history', { id: 's1' })).toMatchObject({ result: { events: [] } });
    expect(await viewer.request('sessions.unwatch', { id: 's1' })).toMatchObject({ result: {} });
    const info = await viewer.request('host.info', {});
    expect(JSON.stringify(info)).not.toContain('secret-projects');
    expect(await viewer.request('blobs.read', { sessionId: 's1', id: 'a'.repeat(64) })).toMatchObject({
      error: { code: 'forbidden' },
    });
    // A paired device on the same host is held to its own scopes, as before.
    const phone = await h.connect(['watch']);
    expect(await phone.request('sessions.list', {})).toMatchObject({ error: { message: 'reached the handler' } });
  });

  it('is cut off when it asks for more while leaving what it was sent unread', async () => {
    const h = harness();
    const link = makeLink(h);
    const viewer = await h.connectViewer(link.id, link.keys);
    const phone = await h.connect();
    viewer.transport.buffered = HIGH_WATER_BYTES + 1;
    phone.transport.buffered = HIGH_WATER_BYTES + 1;
    viewer.channel.send({ t: 'req', id: 1, method: 'sessions.history', params: { id: 's1' } });
    await settle();
    expect(viewer.closed()).toBe('slow-consumer');
    // A paired device is not held to it (its own pacing applies).
    expect(await phone.request('sessions.history', { id: 's1' })).toMatchObject({ result: {} });
    expect(phone.closed()).toBeUndefined();
  });

  it('reads photos only when the link was made with them, and only its own session’s', async () => {
    const h = harness();
    const link = makeLink(h, true);
    const viewer = await h.connectViewer(link.id, link.keys);
    const blob = { sessionId: 's1', id: 'a'.repeat(64) };
    expect(await viewer.request('blobs.read', blob)).toMatchObject({ error: { code: 'not-found' } });
    expect(await viewer.request('blobs.read', { ...blob, sessionId: 's2' })).toMatchObject({
      error: { code: 'forbidden' },
    });
  });

  it('gets events after the devices, with secrets masked, and never twice', async () => {
    const h = harness();
    const { phone, viewer } = await phoneAndViewer(h);
    h.log.append('s1', { type: 'notice', level: 'info', text: SECRET_COMMAND });
    await settle();
    expect(phone.events().map((e) => ('text' in e ? e.text : e.type))).toContain(SECRET_COMMAND);
    expect(viewer.events()).toHaveLength(0);
    h.clock.advance(0);
    await settle();
    const shown = viewer.events();
    expect(shown).toHaveLength(1);
    expect(JSON.stringify(shown)).not.toContain('sk-live-abc123def456');
    expect(shown[0]).toMatchObject({ type: 'notice', seq: 1 });
    expect(shown[0] && 'text' in shown[0] ? shown[0].text : '').toContain('Bearer •••');
    // A watch from the start again replays it once; what the fan-out still holds is not sent again.
    h.log.append('s1', { type: 'notice', level: 'info', text: 'two' });
    await viewer.request('sessions.watch', { id: 's1', after: 0 });
    for (let i = 0; i < 3; i++) await settle();
    h.clock.advance(0);
    await settle();
    const seqs = viewer.events().map((e) => ('seq' in e ? e.seq : 0));
    expect(seqs).toEqual([1, 1, 2]);
  });

  it('is cut off the moment its link is revoked or expires, and never let in again', async () => {
    const h = harness();
    const revoked = makeLink(h);
    const expiring = makeLink(h);
    const a = await h.connectViewer(revoked.id, revoked.keys);
    const b = await h.connectViewer(expiring.id, expiring.keys);
    expect(h.gateway.hub.viewerCount(revoked.id)).toBe(1);
    h.shares.revoke(revoked.id);
    await settle();
    expect(a.closed()).toBe('revoked');
    expect(a.received.at(-1)).toMatchObject({ t: 'bye', code: 'revoked', message: 'this link was revoked' });
    h.clock.advance(SHARE_EXPIRY_MS['1d'] - 1);
    await settle();
    expect(b.closed()).toBeUndefined();
    h.clock.advance(1);
    await settle();
    expect(b.closed()).toBe('revoked');
    expect(b.received.at(-1)).toMatchObject({ t: 'bye', message: 'this link has expired' });
    for (const link of [revoked, expiring]) {
      const again = await h.connectViewer(link.id, link.keys);
      await settle();
      expect(again.received).toEqual([expect.objectContaining({ t: 'bye', code: 'revoked' })]);
    }
    expect(h.gateway.stats.get('viewer:revoked')).toBe(1);
    expect(h.gateway.stats.get('viewer:expired')).toBe(1);
  });

  it('has a pool of its own: a crowd of viewers from one address leaves the devices theirs', async () => {
    const h = harness();
    const link = makeLink(h);
    const viewers = [];
    for (let i = 0; i <= MAX_CONNECTIONS_PER_ADDRESS; i++)
      viewers.push(await h.connectViewer(link.id, link.keys, '198.51.100.7'));
    await settle();
    expect(viewers.slice(0, -1).every((v) => v.closed() === undefined)).toBe(true);
    expect(viewers.at(-1)!.received.at(-1)).toMatchObject({ t: 'bye', code: 'busy' });
    expect(h.gateway.stats.get('viewer:too-many')).toBe(1);
    const phone = await h.connect(['watch'], '198.51.100.7');
    await settle();
    expect(phone.closed()).toBeUndefined();
    expect(h.gateway.hub.connectedDevices().size).toBe(1);
    expect(h.gateway.hub.viewerCount(link.id)).toBe(MAX_CONNECTIONS_PER_ADDRESS);
  });

  it('leaves the devices room on a way in it shares with them (a relay), and is cut off before it fills', async () => {
    const h = harness();
    const link = makeLink(h);
    const relay = { free: PATH_ROOM_FOR_DEVICES + 1, pressure: 0 };
    const path = { room: () => relay.free, pressure: () => relay.pressure };
    const first = await h.connectViewer(link.id, link.keys, '203.0.113.1', path);
    relay.free = PATH_ROOM_FOR_DEVICES - 1;
    const second = await h.connectViewer(link.id, link.keys, '203.0.113.2', path);
    await settle();
    expect(first.closed()).toBeUndefined();
    expect(second.received.at(-1)).toMatchObject({ t: 'bye', code: 'busy' });
    const phone = await h.connect(['watch']);
    await phone.request('sessions.watch', { id: 's1', after: 0 });
    await first.request('sessions.watch', { id: 's1', after: 0 });
    for (let i = 0; i < 3; i++) await settle();
    relay.pressure = 0.5;
    h.log.append('s1', { type: 'notice', level: 'info', text: 'busy relay' });
    h.clock.advance(0);
    await settle();
    expect(first.closed()).toBe('slow-consumer');
    expect(phone.closed()).toBeUndefined();
    expect(phone.events().some((e) => e.type === 'notice')).toBe(true);
  });

  it('drops the viewers, not the devices, when the host cannot keep up with them', async () => {
    const h = harness();
    const { phone, viewer } = await phoneAndViewer(h);
    // The fan-out never gets its turn (the clock stands still): its backlog fills.
    for (let i = 0; i < 2100; i++) h.log.append('s1', { type: 'notice', level: 'info', text: `step ${i}` });
    await settle();
    expect(viewer.closed()).toBe('slow-consumer');
    expect(phone.closed()).toBeUndefined();
    expect(h.gateway.stats.get('viewer:behind')).toBe(1);
    expect(viewer.received.at(-1)).toMatchObject({ t: 'bye', code: 'slow-consumer' });
    expect(CloseCode.SlowConsumer).toBe(4008);
  });
});
