import type { Clock, RelayFrame, TimerHandle } from '@tether/shared-protocol';
import { encodeRelayFrame } from '@tether/shared-protocol';
import { LINK_DEAD_MS, LINK_PING_MS, LINK_READY_DEADLINE_MS } from './link-limits.js';
import { LinkMux } from './link-mux.js';
import type { LinkEvent, LinkPhase } from './link-phase.js';
import { OPENING, nextPhase } from './link-phase.js';
import type { LinkSocket } from './link-socket.js';
import type { LinkGateway } from './link-types.js';
import type { RelayConn } from './relay-conn.js';

/**
 * One dialled socket and everything that lives and dies with it: its phase (`link-phase.ts`), the
 * deadline for the relay's `ready`, the pings that keep it alive once linked, and the device
 * connections and requests it carries (`LinkMux`). The link (`RelayLink`) decides when it starts
 * and ends; this carries what flows while it lives.
 */
export class LinkSession {
  private phaseValue: LinkPhase = OPENING;
  readonly mux: LinkMux;
  lastHeard: number;
  private readyTimer: TimerHandle | undefined;
  private pingTimer: TimerHandle | undefined;

  constructor(
    readonly socket: LinkSocket,
    private readonly gateway: LinkGateway,
    private readonly clock: Clock,
    /** The relay's origin, as the host was given its URL (and checked its challenge against). */
    origin: string,
  ) {
    this.lastHeard = clock.now();
    this.mux = new LinkMux(this, gateway, origin);
  }

  get phase(): LinkPhase {
    return this.phaseValue;
  }

  /** The device connections open on this socket now. */
  get conns(): ReadonlyMap<number, RelayConn> {
    return this.mux.conns;
  }

  /** Moves the phase by `event`; false (and nothing changed) if the phase may not move that way. */
  move(event: LinkEvent): boolean {
    const next = nextPhase(this.phaseValue, event);
    if (!next) return false;
    this.phaseValue = next;
    // The deadline for `ready` lives until the link is up or over; the pings, until it is over.
    if (next.name === 'linked' || next.name === 'closed') this.clearTimer('readyTimer');
    if (next.name === 'closed') this.clearTimer('pingTimer');
    return true;
  }

  /** The relay must accept the link within LINK_READY_DEADLINE_MS (above its own 10 s). */
  expectReady(late: () => void): void {
    this.readyTimer = this.clock.setTimeout(() => {
      this.readyTimer = undefined;
      if (this.phaseValue.name !== 'linked') late();
    }, LINK_READY_DEADLINE_MS);
  }

  /**
   * Keeps the linked session alive: every LINK_PING_MS a quiet link gets a ping; one the relay has
   * said nothing on for LINK_DEAD_MS is taken for dead (`dead`), its socket dropped at once (a
   * dead peer answers no close handshake).
   */
  keepAlive(nonce: Uint8Array, dead: () => void): void {
    this.pingTimer = this.clock.setTimeout(() => {
      this.pingTimer = undefined;
      if (this.phaseValue.name !== 'linked') return;
      const silent = this.clock.now() - this.lastHeard;
      if (silent >= LINK_DEAD_MS) {
        this.socket.terminate();
        return dead();
      }
      if (silent >= LINK_PING_MS) this.control({ type: 'ping', nonce });
      this.keepAlive(nonce, dead);
    }, LINK_PING_MS);
  }

  control(frame: RelayFrame): void {
    const bytes = encodeRelayFrame(frame);
    if (!bytes.ok) {
      // Every frame here is built from checked values; a reply over the relay's size cap is the
      // one way to get here, and the relay answers the caller with a timeout.
      this.gateway.stats.add(`relay:encode-${bytes.error.code}`);
      return;
    }
    this.socket.send(bytes.value, () => undefined);
  }

  /** Ends the session: every device connection is closed (the relay closes their sockets too),
   * every waiting request given up. */
  end(info: { code: number; reason: string }): void {
    if (!this.move({ type: 'end' })) return;
    this.mux.end(info);
    this.socket.onMessage = null;
    this.socket.onClose = null;
  }

  private clearTimer(which: 'readyTimer' | 'pingTimer'): void {
    const timer = this[which];
    if (timer !== undefined) this.clock.clearTimeout(timer);
    this[which] = undefined;
  }
}
