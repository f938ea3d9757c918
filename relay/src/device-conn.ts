import type { Clock, Result } from '@tether/shared-protocol';
import {
  CloseCode,
  RELAY_MAX_PAYLOAD,
  RelayCloseCode,
  decodeRelayFrame,
  verifyRelayTicket,
} from '@tether/shared-protocol';
import type { RelayLimits } from './limits.js';
import type { RelayMetrics } from './metrics.js';
import type { PeerConfig, PeerOwner } from './peer.js';
import { Peer } from './peer.js';
import { verifyEd25519 } from './ed25519.js';
import type { PeerPort } from './peer-port.js';
import type { Downstream, Upstream } from './routes.js';

/** What every device connection of a node shares: made once, by the switchboard. */
export interface DeviceConnDeps {
  clock: Clock;
  limits: RelayLimits;
  metrics: RelayMetrics;
  peer: PeerConfig;
  /** Finds the host's link (here or on another node) and opens a connection on it. */
  attach: (conn: DeviceConn, hostId: string, deviceId: string, source: string) => Promise<Result<Upstream>>;
  onClosed: (conn: DeviceConn) => void;
}

/**
 * One device's connection to a host: its first message is the connect request (the host's key and
 * a ticket the host signed); after that every message is opaque and goes to the host as it is. The
 * relay reads nothing of it. While the host's link is being found the socket is paused, and the few
 * messages already in flight are held within a small bound.
 */
export class DeviceConn implements Downstream, PeerOwner {
  readonly peer: Peer;
  private state: 'auth' | 'attaching' | 'open' | 'closed' = 'auth';
  private upstream: Upstream | undefined;
  /** Messages that arrived while attaching (made only then). */
  private held: Uint8Array[] | undefined;
  private heldBytes = 0;

  constructor(
    private readonly port: PeerPort,
    readonly hostId: string,
    private readonly deps: DeviceConnDeps,
  ) {
    this.peer = new Peer(deps.peer, port, this);
  }

  sendPing(): void {
    this.port.ping();
  }

  received(bytes: Uint8Array): void {
    this.receive(bytes);
  }

  ended(code: number, reason: string): void {
    this.closed(code, reason);
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Host bytes toward the device. A device that cannot keep up is closed, and its host told. */
  send(bytes: Uint8Array): void {
    const verdict = this.peer.send(bytes);
    if (verdict === 'sent' || verdict === 'closed') return;
    const reason = verdict === 'budget-full' ? 'node-memory' : 'slow-consumer';
    this.peer.close(CloseCode.SlowConsumer, reason, reason);
  }

  /** The host side ended this connection: close the device with the host's code and reason. */
  close(code: number, reason: string): void {
    this.upstream = undefined;
    this.peer.close(code, reason);
  }

  private receive(bytes: Uint8Array): void {
    switch (this.state) {
      case 'auth':
        return void this.authenticate(bytes);
      case 'attaching':
        this.held ??= [];
        if (
          this.held.length >= this.deps.limits.attachBufferFrames ||
          this.heldBytes + bytes.length > this.deps.limits.attachBufferBytes
        ) {
          return this.peer.close(CloseCode.ProtocolError, 'attach-overflow', 'attach-overflow');
        }
        this.held.push(bytes);
        this.heldBytes += bytes.length;
        return;
      case 'open':
        return this.upstream?.send(bytes);
      case 'closed':
        return;
    }
  }

  private async authenticate(bytes: Uint8Array): Promise<void> {
    const frame = decodeRelayFrame(bytes);
    if (!frame.ok || frame.value.type !== 'connect') {
      if (!frame.ok && frame.error.code === 'version-unsupported') {
        return this.peer.refuse(CloseCode.VersionUnsupported, 'version-unsupported');
      }
      return this.peer.refuse(CloseCode.ProtocolError, 'auth-malformed');
    }
    const ticket = verifyRelayTicket(frame.value.ticket, {
      hostId: this.hostId,
      hostSignPublicKey: frame.value.hostSignPublicKey,
      clock: this.deps.clock,
      verifySignature: verifyEd25519,
    });
    if (!ticket.ok) {
      const code = ticket.error.code === 'ticket-expired' ? RelayCloseCode.TicketExpired : RelayCloseCode.TicketRefused;
      const reason = ticket.error.code;
      return this.peer.refuse(
        code,
        reason === 'ticket-expired' ||
          reason === 'ticket-forged' ||
          reason === 'ticket-wrong-host' ||
          reason === 'ticket-key-mismatch'
          ? reason
          : 'ticket-malformed',
      );
    }
    this.state = 'attaching';
    this.peer.authenticate(RELAY_MAX_PAYLOAD);
    this.peer.hold();
    const attached = await this.deps.attach(this, this.hostId, ticket.value.deviceId, this.peer.source);
    if (this.state !== 'attaching') {
      // The device left while its host was being found.
      if (attached.ok) attached.value.close(1001, 'device-gone');
      return;
    }
    if (!attached.ok) {
      const offline = attached.error.code !== 'busy';
      return this.peer.refuse(
        offline ? RelayCloseCode.HostOffline : CloseCode.Busy,
        offline ? 'host-offline' : 'host-full',
      );
    }
    this.deps.metrics.accepted('device');
    this.upstream = attached.value;
    this.state = 'open';
    const held = this.held ?? [];
    this.held = undefined;
    this.heldBytes = 0;
    for (const message of held) this.upstream.send(message);
    this.peer.release();
  }

  private closed(code: number, reason: string): void {
    this.state = 'closed';
    this.held = undefined;
    const upstream = this.upstream;
    this.upstream = undefined;
    upstream?.close(code, reason);
    this.deps.onClosed(this);
  }
}
