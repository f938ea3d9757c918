import { CloseCode, RelayCloseCode } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { gatewayHarness, settle } from '../../test/support/gateway-harness.js';
import { FakeRelay } from '../../test/support/fake-relay.js';
import { run, setup } from '../../test/support/relay-link-rig.js';
import { LINK_STABLE_MS } from './link-limits.js';
import type { RelayLinkState } from './relay-link.js';
import type { LinkProbe } from './relay-probe.js';
import { RelayLink } from './relay-link.js';

/**
 * The relay link with several relays, and with relays that end it right after accepting it: a
 * relay's word is about that relay only, and nothing but the person stops the link for good.
 */

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
