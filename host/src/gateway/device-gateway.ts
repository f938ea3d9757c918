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
import { CloseCode, METHODS, ReplayCache, protocolError } from '@tether/shared-protocol';
import type { Caller } from '../rpc/caller.js';
import type { Dispatch, Handlers } from '../rpc/dispatch.js';
import { createDispatch } from '../rpc/dispatch.js';
import type { DeviceStore } from '../store/device-store.js';
import type { EventLog } from '../store/event-log.js';
import { DeviceConnection } from './device-connection.js';
import { DeviceHub } from './device-hub.js';
import type { GatewayTransport } from './gateway-transport.js';
import { answerOneShot } from './one-shot.js';
import type { PairingServiceDeps } from './pairing-service.js';
import { PairingService } from './pairing-service.js';
import { Counters } from './stats.js';

/** Device connections open at once, over every transport; more are refused as `busy`. */
export const MAX_CONNECTIONS = 64;

export interface GatewayDeps extends Omit<PairingServiceDeps, 'devices' | 'clock' | 'random' | 'identity'> {
  identity: HostIdentity;
  devices: DeviceStore;
  log: EventLog;
  clock: Clock;
  random: RandomBytes;
  /** The device methods; given the gateway so a handler can reach its connections. */
  handlers: (gateway: DeviceGateway) => Partial<Handlers<Methods, Caller>>;
}

/**
 * The host's device side, whatever carries it: handshakes, sealed channels, dispatch,
 * subscriptions, pairing, one-shot calls, limits and counters. A transport adapter (the LAN or
 * Tailscale listener, a relay link) hands it connections, pair requests and one-shot calls with
 * the peer's address as that adapter knows it. It exists even when the host listens nowhere.
 */
export class DeviceGateway {
  readonly stats = new Counters();
  readonly hub: DeviceHub;
  readonly pairing: PairingService;
  private readonly replay: ReplayCache;
  private readonly dispatch: Dispatch<Caller>;
  private readonly live = new Set<DeviceConnection>();
  private readonly startedAt: number;

  constructor(private readonly deps: GatewayDeps) {
    this.startedAt = deps.clock.now();
    this.hub = new DeviceHub(deps.devices, deps.clock);
    this.pairing = new PairingService(deps);
    this.replay = new ReplayCache(deps.clock);
    this.dispatch = createDispatch(METHODS, deps.handlers(this), {
      authorize: (method, caller) => {
        const scope = METHODS[method].scope;
        return scope !== null && !caller.device.scopes.includes(scope)
          ? protocolError('forbidden', `${method} needs the ${scope} scope, which this device was not given`)
          : undefined;
      },
      count: (reason) => this.stats.add(reason),
    });
  }

  /**
   * Whether a new connection would be taken now. An adapter that can refuse before accepting
   * (an HTTP upgrade) asks first; `accept` checks again.
   */
  admits(_source: string): ProtocolError | undefined {
    if (this.live.size >= MAX_CONNECTIONS) return protocolError('busy', 'too many connections');
    return undefined;
  }

  /** Takes a new connection: it must send a hello within the handshake deadline. */
  accept(transport: GatewayTransport): Result<DeviceConnection> {
    const refused = this.admits(transport.remoteAddress);
    if (refused) {
      this.stats.add(`connection:${refused.code}`);
      transport.close(CloseCode.Busy, refused.code);
      return { ok: false, error: refused };
    }
    const connection = new DeviceConnection(transport, {
      identity: this.deps.identity,
      lookupDevice: (id) => this.deps.devices.get(id),
      replay: this.replay,
      clock: this.deps.clock,
      random: this.deps.random,
      stats: this.stats,
      log: this.deps.log,
      dispatch: this.dispatch,
      onOpen: (c) => this.hub.opened(c),
      onClose: (c) => {
        this.live.delete(c);
        this.hub.closed(c);
      },
    });
    this.live.add(connection);
    return { ok: true, value: connection };
  }

  /** A pair request from `source`: resolves when the person answers at the computer. */
  pair(body: unknown, source: string, signal: AbortSignal): Promise<Result<PairReplyBody>> {
    return this.pairing.pair(body, source, signal);
  }

  /** A one-shot sealed call: one request, one sealed reply. */
  call(body: Uint8Array, _source: string): Promise<Result<Uint8Array>> {
    return answerOneShot(
      { ...this.deps, replay: this.replay, dispatch: this.dispatch, stats: this.stats, startedAt: this.startedAt },
      body,
    );
  }

  /** Sends a published event to every connection; each routes it to its subscriptions. */
  publish(event: TetherEvent): void {
    this.hub.deliver(event);
  }

  /** Ends every waiting pair request and says goodbye to every connection. */
  close(): void {
    this.pairing.close();
    for (const connection of [...this.live])
      connection.sendBye('unavailable', 'the host is stopping', CloseCode.GoingAway);
  }
}
