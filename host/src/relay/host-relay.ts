import type { Clock, HostIdentity, RandomBytes, RelayLinkStatus, Result } from '@tether/shared-protocol';
import {
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
import { RelayTickets } from './relay-tickets.js';

export interface HostRelayOptions {
  /** `--relay URL`: the relay's public URL. */
  url: string;
  identity: HostIdentity;
  gateway: LinkGateway;
  clock: Clock;
  random: RandomBytes;
  dial?: DialRelay;
  onState?: (state: RelayLinkState) => void;
  /** The tickets for `url` (`relayTickets`), when the devices' handlers were given them first. */
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

/** The tickets a host's devices get for its relay at `url` (checked by `relayUrl`). */
export function relayTickets(url: string, identity: HostIdentity, clock: Clock): RelayTickets {
  return new RelayTickets(url, identity.sign, clock);
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
    readonly url: string,
    private readonly identity: HostIdentity,
    options: HostRelayOptions,
  ) {
    this.tickets = options.tickets ?? relayTickets(url, identity, options.clock);
    this.link = new RelayLink({
      url,
      identity,
      gateway: options.gateway,
      clock: options.clock,
      random: options.random,
      dial: options.dial ?? dialWebSocket(),
      ...(options.onState ? { onState: options.onState } : {}),
    });
  }

  /** Checks the URL (`relayUrl`) before anything is dialled. */
  static create(options: HostRelayOptions): Result<HostRelay> {
    const url = relayUrl(options.url);
    if (!url.ok) return url;
    return ok(new HostRelay(url.value, options.identity, options));
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

  /** What the host's own pages may connect to besides themselves: this relay, over HTTP and WS. */
  connectSources(): string[] {
    const origin = relayOrigin(this.url);
    return origin ? [origin, origin.replace(/^http/, 'ws')] : [];
  }

  status(): RelayLinkStatus {
    const state = this.link.state;
    return {
      url: this.url,
      state: state.name === 'idle' ? 'connecting' : state.name,
      message: this.message(),
      since: this.link.since,
      connections: this.link.connections,
    };
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
        return `the relay at ${where} cannot be reached now (${state.error.message}); trying again`;
      case 'stopped':
        return `the relay link stopped: ${state.error.message}`;
    }
  }
}
