import type {
  Clock,
  HostIdentity,
  RandomBytes,
  RelayLinkStatus,
  RelayStandingInfo,
  Result,
} from '@tether/shared-protocol';
import {
  MAX_RELAYS,
  fail,
  formatPairingLink,
  isRelayUrl,
  ok,
  parsePairingLink,
  relayHostLinkUrl,
  relayOrigin,
} from '@tether/shared-protocol';
import type { DialRelay } from './link-socket.js';
import { dialWebSocket } from './link-socket.js';
import type { LinkGateway, RelayLinkState } from './relay-link.js';
import { RelayLink } from './relay-link.js';
import type { LinkProbe } from './relay-probe.js';
import { probeHostLink } from './relay-probe.js';
import type { RelayEntry } from './relay-roster.js';
import { RelayTickets } from './relay-tickets.js';

export interface HostRelayOptions {
  /** `--relay URL`, each time it was given: the relays' public URLs, most preferred first. */
  urls: readonly string[];
  identity: HostIdentity;
  gateway: LinkGateway;
  clock: Clock;
  random: RandomBytes;
  dial?: DialRelay;
  onState?: (state: RelayLinkState) => void;
  /** A relay refused this host: it is passed over for a while (its entry says why, and until when). */
  onHeld?: (entry: RelayEntry) => void;
  /** How a relay's "a newer link took over" is checked (`probeHostLink` by default). */
  verify?: (url: string) => Promise<LinkProbe>;
  /** The tickets for `urls` (`relayTickets`), when the devices' handlers were given them first. */
  tickets?: RelayTickets;
}

/** Checks a `--relay` URL before anything is dialled: a relay is HTTPS (plain HTTP only on loopback). */
export function relayUrl(url: string): Result<string> {
  const trimmed = url.replace(/\/+$/, '');
  if (!relayHostLinkUrl(trimmed) || !isRelayUrl(trimmed)) {
    return fail(
      'invalid-params',
      `--relay ${url}: give the relay's https:// URL (plain http:// only for a relay on this computer's loopback address)`,
    );
  }
  return ok(trimmed);
}

/**
 * Checks every `--relay` (each may be a comma-separated list) before anything is dialled: each a
 * relay URL (`relayUrl`), none given twice, at most MAX_RELAYS. A duplicate is an error rather than
 * dropped: it is a typo for another relay more often than not.
 */
export function relayUrls(given: readonly string[]): Result<string[]> {
  const urls: string[] = [];
  for (const part of given.flatMap((g) => g.split(','))) {
    const text = part.trim();
    if (text === '') return fail('invalid-params', '--relay: an empty URL in the list');
    const url = relayUrl(text);
    if (!url.ok) return url;
    const same = urls.find(
      (u) => relayOrigin(u) === relayOrigin(url.value) && u.toLowerCase() === url.value.toLowerCase(),
    );
    if (same) return fail('invalid-params', `--relay ${text}: given twice (${same})`);
    urls.push(url.value);
  }
  if (urls.length === 0) return fail('invalid-params', '--relay needs a URL');
  if (urls.length > MAX_RELAYS) return fail('invalid-params', `--relay: at most ${MAX_RELAYS} relays`);
  return ok(urls);
}

/** The tickets a host's devices get for its relays at `urls` (checked by `relayUrls`). */
export function relayTickets(urls: readonly string[], identity: HostIdentity, clock: Clock): RelayTickets {
  return new RelayTickets(urls, identity.sign, clock);
}

/**
 * Everything the host does about its relay, in one place: the link, the tickets its devices get
 * (in the pairing reply and through `relay.ticket`), the pairing link on the relay's origin, and
 * what `tether status` says about it.
 */
export class HostRelay {
  readonly link: RelayLink;
  readonly tickets: RelayTickets;

  private constructor(
    readonly urls: readonly string[],
    private readonly identity: HostIdentity,
    options: HostRelayOptions,
  ) {
    this.tickets = options.tickets ?? relayTickets(urls, identity, options.clock);
    this.link = new RelayLink({
      urls,
      identity,
      gateway: options.gateway,
      clock: options.clock,
      random: options.random,
      dial: options.dial ?? dialWebSocket(),
      ...(options.onState ? { onState: options.onState } : {}),
      ...(options.onHeld ? { onHeld: options.onHeld } : {}),
      verify: options.verify ?? ((url) => probeHostLink(url, identity, options.random, options.clock)),
    });
  }

  /** Checks the URLs (`relayUrls`) before anything is dialled. */
  static create(options: HostRelayOptions): Result<HostRelay> {
    const urls = relayUrls(options.urls);
    if (!urls.ok) return urls;
    return ok(new HostRelay(urls.value, options.identity, options));
  }

  /** The relay the link is on now (or dialling): where a pairing link sends the phone. */
  get url(): string {
    return this.link.url;
  }

  start(): void {
    this.link.start();
  }

  stop(): void {
    this.link.stop();
  }

  get linked(): boolean {
    return this.link.state.name === 'linked';
  }

  /** A pairing link on the relay's origin, naming this host and the relay in its hint. */
  pairLink(currentLink: (base: string) => { link: string; expiresAt: number }): { link: string; expiresAt: number } {
    const current = currentLink(this.url);
    return { link: this.withHint(current.link), expiresAt: current.expiresAt };
  }

  /** Adds the relay hint to a pairing link (a direct one too), so the app knows the relay path. */
  withHint(link: string): string {
    const parsed = parsePairingLink(link);
    // The gateway formats every link it hands out; one that does not parse is a bug upstream.
    if (!parsed.ok) return link;
    return formatPairingLink({ ...parsed.value, relay: { hostId: this.identity.hostId, url: this.url } });
  }

  /** What the host's own pages may connect to besides themselves: every relay, over HTTP and WS. */
  connectSources(): string[] {
    return this.urls.flatMap((url) => {
      const origin = relayOrigin(url);
      return origin ? [origin, origin.replace(/^http/, 'ws')] : [];
    });
  }

  status(): RelayLinkStatus {
    const state = this.link.state;
    return {
      url: this.url,
      ...(this.urls.length > 1 ? { urls: [...this.urls] } : {}),
      state: state.name === 'idle' ? 'connecting' : state.name,
      message: this.message(),
      since: this.link.since,
      connections: this.link.connections,
      relays: this.standings(),
    };
  }

  /** Each relay with its own state and why (`tether status`, `relay.status`). */
  standings(): RelayStandingInfo[] {
    return this.link.relays.map((entry) => ({
      url: entry.url,
      state: entry.standing.name,
      message: standingMessage(entry),
      since: entry.since,
      ...(entry.standing.name === 'held' ? { retryAt: entry.standing.retryAt } : {}),
    }));
  }

  /** In words for the person at the computer. */
  message(): string {
    const state = this.link.state;
    const where = relayOrigin(this.url) ?? this.url;
    switch (state.name) {
      case 'idle':
      case 'connecting':
        return `linking to the relay at ${where}`;
      case 'linked':
        return `phones anywhere reach this host through the relay at ${where}`;
      case 'waiting':
        return `no relay link now (${state.error.message}); trying again`;
      case 'stopped':
        return `the relay link stopped: ${state.error.message}`;
    }
  }
}

/** One relay's state, in words. */
function standingMessage(entry: RelayEntry): string {
  const where = relayOrigin(entry.url) ?? entry.url;
  const standing = entry.standing;
  switch (standing.name) {
    case 'standby':
      return `not in use now: the host moves to it if its link drops`;
    case 'connecting':
      return `linking to the relay at ${where}`;
    case 'linked':
      return `phones anywhere reach this host through the relay at ${where}`;
    case 'failed':
      return `${standing.error.message}; tried again in turn`;
    case 'held':
      return standing.error.message;
  }
}
