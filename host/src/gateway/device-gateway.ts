import type { Secretbox, X25519 } from '@tether/shared-protocol';
import type {
  Clock,
  HostIdentity,
  Methods,
  PairReplyBody,
  ProtocolError,
  RandomBytes,
  Result,
  TetherEvent,
} from '@tether/shared-protocol';
import {
  CloseCode,
  HandshakePool,
  addressRange,
  MAX_VIEWERS,
  MAX_VIEWERS_PER_LINK,
  METHODS,
  ReplayCache,
  protocolError,
} from '@tether/shared-protocol';
import type { Caller } from '../rpc/caller.js';
import type { Dispatch, Handlers } from '../rpc/dispatch.js';
import { createDispatch } from '../rpc/dispatch.js';
import type { DeviceStore } from '../store/device-store.js';
import type { EventLog } from '../store/event-log.js';
import { DeviceConnection } from './device-connection.js';
import { DeviceHub } from './device-hub.js';
import type { GatewayTransport } from './gateway-transport.js';
import { answerOneShot } from './one-shot.js';
import type { OneShotHorizon } from './one-shot-horizon.js';
import type { PairChannel, PairingServiceDeps } from './pairing-service.js';
import { PairingService } from './pairing-service.js';
import { HostCounters } from '../stats/host-counters.js';
import type { ShareLinks } from '../share/share-links.js';
import { authorizeViewer, viewerHandlers } from '../share/viewer-handlers.js';
import { ViewerView } from '../share/viewer-view.js';
import type { ViewerSide } from './viewer-side.js';

/** Device connections open at once, over every transport; more are refused as `busy`. */
export const MAX_CONNECTIONS = 64;
/** Established connections from one address range (an IPv6 /64 counts as one): a phone with a few
 * tabs, a tablet behind the same NAT or on the same home /64. Keeps one address from taking every
 * slot. */
export const MAX_CONNECTIONS_PER_ADDRESS = 16;
/** Connections still in their handshake, a separate small pool (HandshakePool): each has
 * HANDSHAKE_TIMEOUT_MS to say hello, and a real device says it within milliseconds. When it is
 * full, a new connection evicts the oldest pending one of the address holding the most, so idle
 * sockets from elsewhere can never keep a phone out. */
export const MAX_HANDSHAKING = 32;
/** Of the handshake pool, from one address (an IPv6 /64 counts as one). */
export const MAX_HANDSHAKING_PER_ADDRESS = 8;
/** Connections a viewer leaves free on a way in it shares with the devices (a relay, which carries
 * 64 of a host's connections): the owner's phones still get through a crowd of viewers there. */
export const PATH_ROOM_FOR_DEVICES = 16;

export interface GatewayDeps extends Omit<PairingServiceDeps, 'devices' | 'clock' | 'random' | 'identity'> {
  identity: HostIdentity;
  devices: DeviceStore;
  log: EventLog;
  clock: Clock;
  random: RandomBytes;
  /** The device methods; given the gateway so a handler can reach its connections. */
  handlers: (gateway: DeviceGateway) => Partial<Handlers<Methods, Caller>>;
  /** One-shot timestamps kept across restarts (read from the store when the host starts). */
  oneShotHorizon: OneShotHorizon;
  /** Whether a one-shot call may approve this approval (see one-shot.ts). */
  approvableUnopened: (approvalId: string) => boolean;
  /** The X25519 chosen at start (crypto/node-x25519.ts); tweetnacl's unless given. */
  x25519?: X25519;
  /** The secretbox chosen at start for device frames (crypto/native-secretbox.ts); tweetnacl's unless given. */
  secretbox?: Secretbox;
  /** Share links: their viewers connect like devices, to a dispatch of their own (absent: none). */
  shares?: Pick<ShareLinks, 'lookup' | 'touch' | 'onEnded'>;
}

/**
 * The host's device side, whatever carries it: handshakes, sealed channels, dispatch,
 * subscriptions, pairing, one-shot calls, limits and counters. A transport adapter (the LAN or
 * Tailscale listener, a relay link) hands it connections, pair requests and one-shot calls with
 * the peer's address as that adapter knows it. It exists even when the host listens nowhere.
 */
export class DeviceGateway {
  readonly stats = new HostCounters();
  readonly hub: DeviceHub;
  readonly pairing: PairingService;
  private readonly replay: ReplayCache;
  private readonly dispatch: Dispatch<Caller>;
  /** Connections in their handshake. */
  private readonly handshaking = new HandshakePool<DeviceConnection>(MAX_HANDSHAKING, MAX_HANDSHAKING_PER_ADDRESS);
  /** Established connections, with their address ranges. */
  private readonly established = new Map<DeviceConnection, string>();
  /** Share links' viewers, with their address ranges: a pool of their own, so they never crowd a device out. */
  private readonly viewing = new Map<DeviceConnection, string>();
  private readonly viewers: ViewerSide | undefined;
  private readonly stopShares: () => void;
  private readonly startedAt: number;

  constructor(private readonly deps: GatewayDeps) {
    this.startedAt = deps.clock.now();
    this.hub = new DeviceHub(deps.devices, deps.clock, this.stats, (id, at) => deps.shares?.touch(id, at));
    this.pairing = new PairingService(deps);
    this.replay = new ReplayCache(deps.clock);
    // Dispatch counts `request:<error code>`, all of which are listed.
    const count = (reason: string) => this.stats.add(this.stats.has(reason) ? reason : 'request:internal');
    const handlers = deps.handlers(this);
    this.dispatch = createDispatch(METHODS, handlers, {
      authorize: (method, caller) => {
        const scope = METHODS[method].scope;
        return scope !== null && !caller.device.scopes.includes(scope)
          ? protocolError('forbidden', `${method} needs the ${scope} scope, which this device was not given`)
          : undefined;
      },
      count,
    });
    const shares = deps.shares;
    const view = new ViewerView();
    this.viewers = shares && {
      lookup: (id) => shares.lookup(id),
      dispatch: createDispatch(METHODS, viewerHandlers(handlers, view), { authorize: authorizeViewer, count }),
      frame: (event, includePhotos) => view.frame(event, includePhotos),
    };
    // A link revoked or expired cuts its viewers off the moment it ends.
    this.stopShares = shares?.onEnded((id, why) => this.hub.cutViewers(id, why)) ?? (() => undefined);
  }

  /**
   * Why a new connection from `source` would be refused now, if it would. An adapter that can
   * refuse before accepting (an HTTP upgrade) asks first; `accept` checks again.
   */
  admits(source: string): ProtocolError | undefined {
    if (this.established.size >= MAX_CONNECTIONS) return protocolError('busy', 'too many connections');
    if (this.handshaking.refuses(source))
      return protocolError('busy', 'too many connections from this address are still in their handshake');
    return undefined;
  }

  /** Takes a new connection: it must send a hello within the handshake deadline. */
  accept(transport: GatewayTransport): Result<DeviceConnection> {
    const source = transport.remoteAddress;
    const refused = this.admits(source);
    if (refused) {
      this.stats.add(
        this.established.size >= MAX_CONNECTIONS ? 'connection:too-many' : 'connection:too-many-handshaking',
      );
      transport.close(CloseCode.Busy, refused.code);
      return { ok: false, error: refused };
    }
    const connection = new DeviceConnection(transport, {
      identity: this.deps.identity,
      lookupDevice: (id) => this.deps.devices.get(id),
      replay: this.replay,
      clock: this.deps.clock,
      random: this.deps.random,
      ...(this.deps.x25519 ? { x25519: this.deps.x25519 } : {}),
      ...(this.deps.secretbox ? { secretbox: this.deps.secretbox } : {}),
      stats: this.stats,
      log: this.deps.log,
      dispatch: this.dispatch,
      ...(this.viewers ? { viewers: this.viewers } : {}),
      onOpen: (c) => this.opened(c, source),
      onClose: (c) => {
        this.handshaking.delete(c);
        this.established.delete(c);
        this.viewing.delete(c);
        this.hub.closed(c);
      },
    });
    const evicted = this.handshaking.add(connection, source);
    if (evicted) {
      this.stats.add('connection:handshake-pool-full');
      evicted.sendBye('busy', 'too many connections in their handshake', CloseCode.Busy);
    }
    return { ok: true, value: connection };
  }

  /**
   * A pair message from `source`: a commit is answered at once; a reveal resolves when the person
   * answers at the computer. `channel` says whether it came over a secure channel, which the
   * adapter knows (TLS or loopback for the LAN listener; a relay serves the app over HTTPS).
   */
  pair(body: unknown, source: string, signal: AbortSignal, channel: PairChannel): Promise<Result<PairReplyBody>> {
    return this.pairing.pair(body, source, signal, channel);
  }

  /** A one-shot sealed call: one request, one sealed reply. */
  call(body: Uint8Array, _source: string): Promise<Result<Uint8Array>> {
    return answerOneShot(
      {
        ...this.deps,
        replay: this.replay,
        dispatch: this.dispatch,
        stats: this.stats,
        startedAt: this.startedAt,
        horizon: this.deps.oneShotHorizon,
      },
      body,
    );
  }

  /** Sends a published event to every connection; each routes it to its subscriptions. */
  publish(event: TetherEvent): void {
    this.hub.deliver(event);
  }

  /** Ends every waiting pair request and says goodbye to every connection. */
  close(): void {
    this.stopShares();
    this.pairing.close();
    const open = [...this.handshaking.connections(), ...this.established.keys(), ...this.viewing.keys()];
    for (const connection of open) connection.sendBye('unavailable', 'the host is stopping', CloseCode.GoingAway);
  }

  private opened(connection: DeviceConnection, source: string): void {
    this.handshaking.delete(connection);
    const range = addressRange(source);
    if (connection.viewer) return this.openedViewer(connection, connection.viewer.id, range);
    if (this.established.size >= MAX_CONNECTIONS || count(this.established, range) >= MAX_CONNECTIONS_PER_ADDRESS) {
      this.stats.add('connection:too-many-established');
      connection.sendBye('busy', 'too many connections; close another tab or device', CloseCode.Busy);
      return;
    }
    this.established.set(connection, range);
    this.hub.opened(connection);
  }

  /**
   * A viewer is let in while its link, the viewers' pool and its address each have room, and the
   * way it came by (a relay) keeps room for the devices.
   */
  private openedViewer(connection: DeviceConnection, linkId: string, range: string): void {
    if (
      this.viewing.size >= MAX_VIEWERS ||
      this.hub.viewerCount(linkId) >= MAX_VIEWERS_PER_LINK ||
      count(this.viewing, range) >= MAX_CONNECTIONS_PER_ADDRESS ||
      (connection.transport.path?.room() ?? Infinity) < PATH_ROOM_FOR_DEVICES
    ) {
      this.stats.add('viewer:too-many');
      connection.sendBye('busy', 'too many people are viewing this link now; try again later', CloseCode.Busy);
      return;
    }
    this.stats.add('viewer:accepted');
    this.viewing.set(connection, range);
    this.hub.opened(connection);
  }
}

function count(connections: ReadonlyMap<DeviceConnection, string>, range: string): number {
  let n = 0;
  for (const r of connections.values()) if (r === range) n++;
  return n;
}
