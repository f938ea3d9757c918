import type { DeviceInfo, PairReply, RelayFrame, Result } from '@tether/shared-protocol';
import {
  CloseCode,
  DeviceChannel,
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
import { gatewayHarness, settle } from '../../test/support/gateway-harness.js';
import type { FakeLinkSocket } from '../../test/support/fake-relay.js';
import { FakeRelay } from '../../test/support/fake-relay.js';
import { LINK_DEAD_MS, LINK_PING_MS, LINK_STABLE_MS, MAX_CONN_QUEUED_BYTES } from './link-limits.js';
import type { RelayLinkState } from './relay-link.js';
import type { LinkProbe } from './relay-probe.js';
import { RelayLink } from './relay-link.js';

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

function setup(verify?: (url: string) => Promise<LinkProbe>) {
  const h = gatewayHarness();
  const relay = new FakeRelay(h.clock, h.random);
  const states: RelayLinkState[] = [];
  const link = new RelayLink({
    urls: ['https://relay.test'],
    identity: h.identity,
    gateway: h.gateway,
    clock: h.clock,
    random: h.random,
    dial: relay.dial,
    onState: (s) => states.push(s),
    ...(verify ? { verify } : {}),
  });
  /** A device in the store, and a connection for it opened through the link. */
  const device = async (connId: number, opts: { revoked?: boolean; source?: string } = {}) => {
    const keys = generateBoxKeyPair(h.random);
    const info: DeviceInfo = h.devices.insert({
      id: generateDeviceId(h.random),
      publicKey: keys.publicKey,
      label: 'phone',
      scopes: ['watch', 'approve', 'chat'],
      createdAt: h.clock.now(),
    });
    if (opts.revoked) h.devices.revoke(info.id, h.clock.now());
    const transport = relay.current.openDevice(connId, info.id, opts.source);
    const opened = await DeviceChannel.open(transport, {
      deviceId: info.id,
      deviceKeys: keys,
      hostBoxPublicKey: h.identity.box.publicKey,
      clock: h.clock,
      random: h.random,
    });
    return { info, transport, opened };
  };
  return { h, relay, link, states, device };
}

async function linked() {
  const s = setup();
  s.link.start();
  await settle();
  expect(s.link.state.name).toBe('linked');
  return s;
}

const names = (states: RelayLinkState[]) => states.map((s) => s.name);

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
    const { h, relay, link, device } = await linked();
    const b = await device(2);
    expect(b.opened.ok).toBe(true);
    // A connection still in its handshake: the test writes to it as the gateway would.
    relay.current.openDevice(1, generateDeviceId(h.random));
    const a = findTransport(link, 1);
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

describe('a link with several relays', () => {
  function twoRelays(verify?: (url: string) => Promise<LinkProbe>) {
    const h = gatewayHarness();
    const a = new FakeRelay(h.clock, h.random);
    const b = new FakeRelay(h.clock, h.random);
    a.origin = 'https://a.test';
    b.origin = 'https://b.test';
    const states: RelayLinkState[] = [];
    /** The relays held, in turn. */
    const held: string[] = [];
    /** Which relay each dial went to, and when (ms on the manual clock). */
    const dials: { to: string; at: number }[] = [];
    const link = new RelayLink({
      urls: ['https://a.test', 'https://b.test'],
      identity: h.identity,
      gateway: h.gateway,
      clock: h.clock,
      random: h.random,
      dial: (url) => {
        const to = url.startsWith('wss://a.test/') ? 'a' : 'b';
        dials.push({ to, at: h.clock.now() });
        return (to === 'a' ? a : b).dial(url);
      },
      onState: (s) => states.push(s),
      onHeld: (entry) => held.push(entry.url),
      ...(verify ? { verify } : {}),
    });
    return { h, a, b, link, states, dials, held };
  }

  it('moves to the next relay within 2 s when its link drops, and proves itself to that one', async () => {
    const { h, a, b, link } = twoRelays();
    link.start();
    await settle();
    expect(link.state.name).toBe('linked');
    expect(link.url).toBe('https://a.test');
    expect(b.sockets).toHaveLength(0);

    // Relay A dies; it stays dead.
    a.down = true;
    a.current.relayCloses(1006, '');
    await settle();
    expect(link.state.name).toBe('waiting');
    h.clock.advance(2000);
    await settle();
    expect(link.state.name).toBe('linked');
    expect(link.url).toBe('https://b.test');
    expect(b.current.hostId).toBe(h.identity.hostId);
    // The link names the relay it is on, and the challenge it signed was B's: a relay that names
    // another origin than the URL being dialled is still refused.
    expect(b.current.url).toBe('wss://b.test/relay/host');
    expect(a.sockets).toHaveLength(1);
  });

  it('tries the relays in turn while none answers, with the usual backoff, and links to the first that does', async () => {
    const { h, a, b, link, dials } = twoRelays();
    a.down = true;
    b.down = true;
    link.start();
    await settle();
    for (let i = 0; i < 6; i++) {
      h.clock.advance(1000 * 2 ** i);
      await settle();
    }
    // A, then B, then A again: each failed dial moves on, and the waits between them grow.
    expect(dials.map((d) => d.to).slice(0, 6)).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
    const gaps = dials.slice(1).map((d, i) => d.at - dials[i]!.at);
    expect(gaps[4]!).toBeGreaterThan(gaps[0]!);
    expect(link.state.name).toBe('waiting');
    b.down = false;
    h.clock.advance(30_000);
    await settle();
    h.clock.advance(30_000);
    await settle();
    expect(link.state.name).toBe('linked');
    expect(link.url).toBe('https://b.test');
  });

  it('links again at once, to the next relay, when a relay it has been on a while says it is draining', async () => {
    const { h, a, link } = twoRelays();
    link.start();
    await settle();
    h.clock.advance(LINK_STABLE_MS);
    const socket = a.current;
    socket.fromRelay({ type: 'drain' });
    await settle();
    // No backoff: the next relay is dialled before any time passes.
    expect(socket.closedWith).toEqual({ code: 1001, reason: 'relay-draining' });
    expect(link.state.name).toBe('linked');
    expect(link.url).toBe('https://b.test');
    expect(h.gateway.stats.get('relay:drain')).toBe(1);
  });

  it('holds only the relay that says a newer link took over: linked through the next at once, the first asked again later', async () => {
    const { h, a, b, link, dials, held } = twoRelays();
    link.start();
    await settle();
    a.current.relayCloses(RelayCloseCode.Replaced, 'replaced');
    await run(h, 500);
    expect(link.state.name).toBe('linked');
    expect(link.url).toBe('https://b.test');
    expect(held).toEqual(['https://a.test']);
    expect(link.relays.map((r) => r.standing.name)).toEqual(['held', 'linked']);
    // B drops: A is still held, so B is dialled again rather than A.
    await run(h, LINK_STABLE_MS);
    b.current.relayCloses(1006, '');
    await run(h, 500);
    expect(dials.map((d) => d.to)).toEqual(['a', 'b', 'b']);
    // Past A's hold, a drop moves to A again.
    await run(h, 30_000);
    b.current.relayCloses(1006, '');
    await run(h, 500);
    expect(dials.map((d) => d.to)).toEqual(['a', 'b', 'b', 'a']);
    expect(link.url).toBe('https://a.test');
    expect(link.state.name).toBe('linked');
  });

  it.each([
    ['4100 ticket refused', RelayCloseCode.TicketRefused, 'ticket-forged'],
    ['4101 ticket expired', RelayCloseCode.TicketExpired, 'ticket-expired'],
    ['4105 signature refused', RelayCloseCode.AuthFailed, 'auth-failed'],
    ['4005 another version', CloseCode.VersionUnsupported, 'version-unsupported'],
  ])('holds only the relay that closes the link with %s, and goes on through the next', async (_, code, reason) => {
    const { h, a, link } = twoRelays();
    link.start();
    await settle();
    a.current.relayCloses(code, reason);
    h.clock.advance(500);
    await settle();
    expect(link.state.name).toBe('linked');
    expect(link.url).toBe('https://b.test');
    expect(link.relays[0]!.standing.name).toBe('held');
  });

  it('with every relay held, asks one again at once rather than sit out the holds: a relay that said replaced, checked first', async () => {
    const asked: string[] = [];
    const { h, a, b, link, dials } = twoRelays((url) => {
      asked.push(url);
      return Promise.resolve('none');
    });
    link.start();
    await settle();
    a.current.relayCloses(RelayCloseCode.Replaced, 'replaced');
    await run(h, 500);
    expect(link.url).toBe('https://b.test');
    b.current.relayCloses(RelayCloseCode.AuthFailed, 'auth-failed');
    await run(h, 1_500);
    // A's word was checked (nothing holds this host there) and A dialled again, well inside its hold.
    expect(asked).toEqual(['https://a.test']);
    expect(dials.map((d) => d.to)).toEqual(['a', 'b', 'a']);
    expect(link.state.name).toBe('linked');
    expect(link.url).toBe('https://a.test');
  });

  it('forgets the failures before a link that lasted: a refusal after it, then a failed dial, waits the first step', async () => {
    const { h, a, b, link, dials } = twoRelays();
    a.down = true;
    b.down = true;
    link.start();
    await settle();
    // Both down for a while: the backoff grows to its long steps.
    for (let i = 0; i < 6; i++) await run(h, 1000 * 2 ** i);
    b.down = false;
    await run(h, 60_000);
    expect(link.url).toBe('https://b.test');
    expect(link.state.name).toBe('linked');
    // A healthy link, well past LINK_STABLE_MS; then B refuses the host and A is still down.
    await run(h, LINK_STABLE_MS + 1_000);
    const before = dials.length;
    b.current.relayCloses(RelayCloseCode.AuthFailed, 'auth-failed');
    await run(h, 600);
    // A dialled at once, failed, and dialled again after the first step (0.25–0.5 s), not 16–32 s.
    expect(dials.slice(before).map((d) => d.to)).toEqual(['a', 'a']);
  });

  it.each(['drain', 'close'] as const)(
    'after a link that ended right after ready (%s), tries the next relay even if it is held',
    async (end) => {
      const { h, a, b, link, dials } = twoRelays();
      link.start();
      await settle();
      // A refused the host (held 30 s), the link went on through B; B ends it right after ready.
      a.current.relayCloses(RelayCloseCode.AuthFailed, 'auth-failed');
      await run(h, 500);
      expect(link.url).toBe('https://b.test');
      if (end === 'drain') b.current.fromRelay({ type: 'drain' });
      else b.current.relayCloses(1011, 'server-error');
      await run(h, 1_000);
      // B is no better than a held relay: A, whose refusal may have been false, is asked again.
      expect(dials.map((d) => d.to)).toEqual(['a', 'b', 'a']);
      expect(link.url).toBe('https://a.test');
      expect(link.state.name).toBe('linked');
    },
  );

  it('passes over a relay with a wrong --public-url and links through the next', async () => {
    const { h, a, link } = twoRelays();
    a.origin = 'https://wrong.test';
    link.start();
    await settle();
    h.clock.advance(500);
    await settle();
    expect(link.state.name).toBe('linked');
    expect(link.url).toBe('https://b.test');
    const standing = link.relays[0]!.standing;
    expect(standing.name === 'held' && standing.error.message).toContain("the relay's --public-url");
  });
});

describe('a relay that ends the link right after accepting it', () => {
  /** Dials made during `ms` of the manual clock, with the relay doing `end` after every `ready`. */
  async function dialsWhile(end: 'drain' | 'close', ms: number): Promise<number> {
    const { h, relay, link } = setup();
    link.start();
    await settle();
    const before = relay.sockets.length;
    for (let t = 0; t < ms; t += 50) {
      const socket = relay.current;
      if (socket.hostId && !socket.closedWith) {
        if (end === 'drain') socket.fromRelay({ type: 'drain' });
        else socket.relayCloses(1011, 'server-error');
      }
      h.clock.advance(50);
      await settle();
    }
    return relay.sockets.length - before;
  }

  it.each(['drain', 'close'] as const)(
    'backs off, with jitter, whatever ended it (%s): a few dials a minute, not a loop',
    async (end) => {
      const dials = await dialsWhile(end, 60_000);
      // 0.5 s doubling: 0.25–0.5, 0.5–1, 1–2, 2–4, 4–8, 8–16, 16–32 s: at most 8 in a minute.
      expect(dials).toBeGreaterThanOrEqual(5);
      expect(dials).toBeLessThanOrEqual(9);
    },
  );
});

/** Moves the manual clock on by `ms` in small steps, letting sockets answer between them. */
async function run(h: { clock: { advance(ms: number): void } }, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    h.clock.advance(Math.min(100, ms - t));
    await settle();
  }
}

/** The gateway-side transport of a device's connection through the link. */
function findTransport(link: RelayLink, connId: number) {
  const session = (link as unknown as { session?: { conns: Map<number, unknown> } }).session;
  const conn = session?.conns.get(connId);
  if (!conn) throw new Error('no such connection');
  return conn as unknown as { send(data: Uint8Array): void; bufferedAmount(): number };
}
