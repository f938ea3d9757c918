import type { PairReply, RelayFrame, Result } from '@tether/shared-protocol';
import {
  CloseCode,
  NO_CALL_TAKER,
  NO_SUCH_PAIRING,
  PROTOCOL_VERSION,
  RELAY_LINK_VERSION,
  RelayCloseCode,
  generateBoxKeyPair,
  generateDeviceId,
  fail,
  isErrorCode,
  ok,
  pairWithHost,
  parsePairingLink,
  relayAnswerBody,
  sealCall,
  toBase64Url,
  utf8Decode,
  utf8Encode,
} from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import type { gatewayHarness } from '../../test/support/gateway-harness.js';
import { settle } from '../../test/support/gateway-harness.js';
import type { FakeLinkSocket } from '../../test/support/fake-relay.js';
import { LINK_DEAD_MS, LINK_PING_MS, MAX_CONN_QUEUED_BYTES } from './link-limits.js';
import { linked, names, run, setup } from '../../test/support/relay-link-rig.js';

/** A device pairing with the gateway through the link, each step a forwarded pair request. */
function pairThroughLink(h: ReturnType<typeof gatewayHarness>, socket: FakeLinkSocket): Promise<Result<PairReply>> {
  const link = parsePairingLink(h.gateway.pairing.currentLink('https://relay.test').link);
  if (!link.ok) throw new Error(link.error.message);
  return pairWithHost({
    link: link.value,
    devicePublicKey: generateBoxKeyPair(h.random).publicKey,
    label: 'phone',
    random: h.random,
    onCode: () => undefined,
    post: async (body) => {
      const answer = await socket.request('pair-request', utf8Encode(JSON.stringify(body)));
      const json = JSON.parse(utf8Decode(answer.body) ?? 'null') as { error?: { code?: unknown; message?: string } };
      if (answer.status === 200) return ok(json);
      return isErrorCode(json.error?.code) ? fail(json.error.code, json.error.message ?? '') : fail('pair-failed', '');
    },
  });
}

describe('the relay link', () => {
  it('proves the host id by signing the challenge of the relay it dialled, and keeps the link alive', async () => {
    const { h, relay, link, states } = await linked();
    expect(relay.current.url).toBe('wss://relay.test/relay/host');
    expect(relay.current.hostId).toBe(h.identity.hostId);
    expect(names(states)).toEqual(['connecting', 'linked']);
    expect(link.skewMs).toBe(0);

    // The relay's pings are answered with the same nonce.
    relay.current.fromRelay({ type: 'ping', nonce: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) });
    expect(relay.current.frames.at(-1)).toEqual({ type: 'pong', nonce: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) });
    // A quiet link gets the host's own ping; one silent for LINK_DEAD_MS is dialled again.
    h.clock.advance(LINK_PING_MS);
    expect(relay.current.frames.at(-1)?.type).toBe('ping');
    h.clock.advance(LINK_DEAD_MS - LINK_PING_MS);
    expect(relay.current.closedWith).toBeDefined();
    expect(link.state).toMatchObject({ name: 'waiting', error: { code: 'timeout' } });
    expect(h.gateway.stats.get('relay:dead')).toBe(1);
    h.clock.advance(1000);
    await settle();
    expect(relay.sockets).toHaveLength(2);
    expect(link.state.name).toBe('linked');
  });

  it('passes over a relay that names another origin, without signing anything, and asks it again', async () => {
    const { h, relay, link, states } = setup();
    relay.origin = 'https://elsewhere.test';
    link.start();
    await settle();
    expect(relay.current.hostId).toBeUndefined();
    // A relay's word is about itself: the link waits, never stops, and says why.
    expect(link.state).toMatchObject({ name: 'waiting', error: { code: 'handshake-failed' } });
    expect(link.state.name === 'waiting' && link.state.error.message).toContain('https://elsewhere.test');
    expect(link.state.name === 'waiting' && link.state.error.message).toContain('asking it again');
    expect(names(states)).toEqual(['connecting', 'waiting']);
    expect(link.relays[0]!.standing).toMatchObject({ name: 'held', error: { code: 'handshake-failed' } });
    // With no other relay to go to, it is asked again after the link's backoff; fixed, it links.
    await run(h, 500);
    expect(relay.sockets).toHaveLength(2);
    relay.origin = 'https://relay.test';
    await run(h, 1_000);
    expect(relay.sockets).toHaveLength(3);
    expect(link.state.name).toBe('linked');
  });

  it('checks a lone relay that says a newer link took over: true, it stays off it for a long while and says so', async () => {
    const asked: string[] = [];
    const { h, relay, link } = setup((url) => {
      asked.push(url);
      return Promise.resolve('live');
    });
    link.start();
    await settle();
    relay.current.relayCloses(RelayCloseCode.Replaced, 'replaced');
    await run(h, 500);
    expect(asked).toEqual(['https://relay.test']);
    expect(link.state).toMatchObject({ name: 'waiting', error: { code: 'conflict' } });
    expect(link.state.name === 'waiting' && link.state.error.message).toContain('another link for this host is up');
    expect(link.relays[0]!.standing).toMatchObject({ name: 'held' });
    // Off it until the hold (15 to 30 s) ends: the other process is not disturbed meanwhile.
    await run(h, 14_000);
    expect(relay.sockets).toHaveLength(1);
    await run(h, 16_000);
    expect(relay.sockets).toHaveLength(2);
    expect(link.state.name).toBe('linked');
  });

  it.each(['none', 'unknown'] as const)(
    'checks a lone relay that says a newer link took over: %s, and it is dialled again at once',
    async (answer) => {
      const { h, relay, link } = setup(() => Promise.resolve(answer));
      link.start();
      await settle();
      relay.current.relayCloses(RelayCloseCode.Replaced, 'replaced');
      await run(h, 600);
      expect(relay.sockets).toHaveLength(2);
      expect(link.state.name).toBe('linked');
    },
  );

  it("waits and tries again when the relay's clock is off, saying by how much", async () => {
    const { h, relay, link } = setup();
    relay.skewMs = 5 * 60_000;
    link.start();
    await settle();
    expect(relay.current.hostId).toBeUndefined();
    expect(link.state).toMatchObject({ name: 'waiting', error: { code: 'handshake-stale' } });
    expect(link.state.name === 'waiting' && link.state.error.message).toContain('300 s ahead');
    relay.skewMs = 0;
    h.clock.advance(1000);
    await settle();
    expect(link.state.name).toBe('linked');
  });

  it('carries a device connection to the gateway: same handshake, and a revoked device is refused', async () => {
    const { h, relay, device } = await linked();
    const ok = await device(1);
    expect(ok.opened.ok).toBe(true);
    if (!ok.opened.ok) return;
    const pong = new Promise((resolve) => (ok.opened.ok ? (ok.opened.value.onMessage = resolve) : undefined));
    ok.opened.value.send({ t: 'ping', n: 7 });
    expect(await pong).toEqual({ t: 'pong', n: 7 });
    expect(h.gateway.hub.connectedDevices().has(ok.info.id)).toBe(true);

    // A revoked device is told so, sealed, and its connection closed (4003), as on the LAN listener.
    const revoked = await device(2, { revoked: true });
    if (!revoked.opened.ok) throw new Error(revoked.opened.error.message);
    const bye = new Promise((resolve) => (revoked.opened.ok ? (revoked.opened.value.onMessage = resolve) : undefined));
    expect(await bye).toMatchObject({ t: 'bye', code: 'revoked' });
    await settle();
    expect(relay.current.frames).toContainEqual(
      expect.objectContaining({ type: 'close', connId: 2, code: CloseCode.Revoked }),
    );
    expect(h.gateway.hub.connectedDevices().has(revoked.info.id)).toBe(false);
  });

  it('counts what each device has queued on the link, and closes only the one past its share', async () => {
    const { h, relay, link, device, accepted } = await linked();
    const b = await device(2);
    expect(b.opened.ok).toBe(true);
    // A connection still in its handshake: the test writes to it as the gateway would.
    relay.current.openDevice(1, generateDeviceId(h.random));
    const a = accepted.get(1)!;
    relay.current.writesComplete = false;
    a.send(new Uint8Array(1024 * 1024));
    expect(a.bufferedAmount()).toBe(1024 * 1024 + 6);
    relay.current.flush();
    await settle();
    expect(a.bufferedAmount()).toBe(0);

    // Bytes that pile up past the connection's share close it as too slow; the other carries on.
    relay.current.writesComplete = false;
    for (let i = 0; i <= MAX_CONN_QUEUED_BYTES / (1024 * 1024); i++) a.send(new Uint8Array(1024 * 1024));
    expect(relay.current.frames.filter((f) => f.type === 'data' && f.connId === 1)).toHaveLength(1 + 7);
    expect(relay.current.frames.at(-1)).toEqual({
      type: 'close',
      connId: 1,
      code: CloseCode.SlowConsumer,
      reason: 'slow-consumer',
    });
    expect(h.gateway.stats.get('relay:conn-queue-full')).toBe(1);
    relay.current.flush();
    await settle();
    expect(h.gateway.hub.connectedDevices().has(b.info.id)).toBe(true);
    expect(link.connections).toBe(1);
  });

  it('closes its devices when the link drops, relinks with backoff, and is not stopped when a newer link took over', async () => {
    const { h, relay, link, device } = await linked();
    const a = await device(1);
    expect(a.opened.ok).toBe(true);
    relay.current.relayCloses(1006, '');
    await settle();
    expect(h.gateway.hub.connectedDevices().size).toBe(0);
    expect(link.state).toMatchObject({ name: 'waiting', attempt: 0 });
    const retryAt = link.state.name === 'waiting' ? link.state.retryAt : 0;
    // Equal jitter: the first retry comes between 250 and 500 ms.
    expect(retryAt - h.clock.now()).toBeGreaterThanOrEqual(250);
    expect(retryAt - h.clock.now()).toBeLessThanOrEqual(500);
    h.clock.advance(500);
    await settle();
    expect(link.state.name).toBe('linked');

    // A newer link with this key, says the relay: its word, about itself. The link waits, says so,
    // and is never stopped by it (checked, as here without a check, it is dialled again).
    relay.current.relayCloses(RelayCloseCode.Replaced, 'replaced');
    expect(link.state).toMatchObject({ name: 'waiting', error: { code: 'conflict' } });
    expect(link.state.name === 'waiting' && link.state.error.message).toContain('another `tether start`');
    await run(h, 1_000);
    expect(relay.sockets).toHaveLength(3);
    expect(link.state.name).toBe('linked');
  });

  it('skips a frame type it does not know, and relinks after one that does not decode', async () => {
    const { h, relay, link } = await linked();
    relay.current.fromRelay(Uint8Array.of(RELAY_LINK_VERSION, 0x7f, 1, 2));
    expect(h.gateway.stats.get('relay:unknown-frame')).toBe(1);
    expect(link.state.name).toBe('linked');
    relay.current.fromRelay(Uint8Array.of(RELAY_LINK_VERSION, 0x11, 1));
    expect(relay.current.closedWith).toEqual({ code: CloseCode.ProtocolError, reason: 'frame-malformed' });
    expect(link.state.name).toBe('waiting');
    // A frame only a device may send is out of place on a host link.
    h.clock.advance(500);
    await settle();
    relay.current.fromRelay({ type: 'ready', hostId: h.identity.hostId, maxConnections: 1, maxPayload: 1 });
    expect(relay.current.closedWith?.reason).toBe('unexpected-frame');
  });

  it('answers forwarded pair requests as the host answers its own, and one-shot calls', async () => {
    const { h, relay } = await linked();
    const bad = await relay.current.request('pair-request', utf8Encode('{not json'));
    expect(bad.status).toBe(400);
    expect(JSON.parse(utf8Decode(bad.body)!)).toMatchObject({ error: { code: 'pair-malformed' } });

    const pending = pairThroughLink(h, relay.current);
    await settle();
    const [request] = h.gateway.pairing.requests();
    // The app that asked was the relay's (it says it serves the app): the request names it, and
    // gets watch and approve unless the person asks for more.
    expect(request).toMatchObject({
      secure: true,
      page: { from: 'relay', origin: 'https://relay.test', app: true },
      scopes: ['watch', 'approve'],
    });
    h.gateway.pairing.deny(request!.id);
    expect(await pending).toMatchObject({ ok: false, error: { code: 'pair-denied' } });

    const call = await relay.current.request('call-request', Uint8Array.of(4, 1, 2, 3));
    expect(call.status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse(utf8Decode(call.body)!)).toHaveProperty('error.code');
  });

  it.each([
    ['says it serves no app', false],
    ['says nothing of what it serves (an older relay)', undefined],
  ] as const)('labels a pair request through a relay that %s as such: no page of it sent it', async (_, serves) => {
    const { h, relay, link } = setup();
    relay.servesApp = serves;
    link.start();
    await settle();
    void pairThroughLink(h, relay.current);
    await settle();
    const [request] = h.gateway.pairing.requests();
    expect(request).toMatchObject({ page: { from: 'relay', origin: 'https://relay.test', app: false } });
    expect(request?.scopes).toEqual(['watch', 'approve']);
  });

  it('answers, through the relay, what it cannot open with the very bytes a relay gives for a host it does not have', async () => {
    const { h, relay } = await linked();
    const strangerPair = JSON.stringify({
      v: PROTOCOL_VERSION,
      pairingId: toBase64Url(h.random(16)),
      nonce: toBase64Url(h.random(24)),
      box: toBase64Url(h.random(48)),
    });
    const pair = await relay.current.request('pair-request', utf8Encode(strangerPair));
    expect([pair.status, utf8Decode(pair.body)]).toEqual([
      NO_SUCH_PAIRING.status,
      utf8Decode(relayAnswerBody(NO_SUCH_PAIRING)),
    ]);
    const strangerCall = sealCall(
      {
        deviceId: generateDeviceId(h.random),
        deviceKeys: generateBoxKeyPair(h.random),
        hostBoxPublicKey: h.identity.box.publicKey,
        clock: h.clock,
        random: h.random,
      },
      utf8Encode('{}'),
    ).message;
    const call = await relay.current.request('call-request', strangerCall);
    expect([call.status, utf8Decode(call.body)]).toEqual([
      NO_CALL_TAKER.status,
      utf8Decode(relayAnswerBody(NO_CALL_TAKER)),
    ]);
    // Past the host's own pairing limit too (several relay nodes let more through than one): a
    // stranger still gets what a relay gives for no host, so the limit tells nobody the host is here.
    let limited = await relay.current.request('pair-request', utf8Encode(strangerPair));
    for (let i = 0; i < 40; i++) limited = await relay.current.request('pair-request', utf8Encode(strangerPair));
    expect([limited.status, utf8Decode(limited.body)]).toEqual([
      NO_SUCH_PAIRING.status,
      utf8Decode(relayAnswerBody(NO_SUCH_PAIRING)),
    ]);
  });

  it('gives up a waiting pair request when the link goes', async () => {
    const { h, relay } = await linked();
    const socket = relay.current;
    void pairThroughLink(h, socket);
    await settle();
    expect(h.gateway.pairing.requests()).toHaveLength(1);
    socket.relayCloses(1006, '');
    await settle();
    expect(h.gateway.pairing.requests()).toHaveLength(0);
    // The commit was answered with a challenge; the revealed request never gets a reply.
    expect(socket.frames.filter((f: RelayFrame) => f.type === 'reply')).toHaveLength(1);
  });
});
