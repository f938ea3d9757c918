import type { Clock, RandomBytes, RelayFrame, Result, TimerHandle } from '@tether/shared-protocol';
import {
  CloseCode,
  RELAY_MAX_LINK_MESSAGE,
  RELAY_MAX_PAYLOAD,
  RelayCloseCode,
  decodeRelayFrame,
  encodeRelayData,
  encodeRelayFrame,
  fail,
  isSendableCloseCode,
  makeRelayChallenge,
  ok,
  verifyHostAuth,
} from '@tether/shared-protocol';
import type { RelayLimits } from './limits.js';
import type { DropReason, RelayMetrics, RequestKind } from './metrics.js';
import type { OutboxVerdict } from './outbox.js';
import { CONTROL } from './outbox.js';
import type { PeerConfig, PeerOwner } from './peer.js';
import { Peer } from './peer.js';
import type { PeerPort } from './peer-port.js';
import type { Gate } from './gate.js';
import type { Downstream, HostEndpoint, RelayReply, Upstream } from './routes.js';
import { clipReason } from './routes.js';

/** What every host link of a node shares: made once, by the switchboard. */
export interface HostLinkDeps {
  clock: Clock;
  random: RandomBytes;
  limits: RelayLimits;
  metrics: RelayMetrics;
  peer: PeerConfig;
  /** This relay's origin, named in the challenge. */
  origin: string;
  /** Whether this relay serves the app's pages (`about`, after `ready`): a host labels the pair
   * requests it forwards by it. */
  servesApp: boolean;
  /** Pair requests and calls waiting across the node. */
  requests: Gate;
  /** The host proved its id: make this the link for it (closing any older one). */
  onAuthenticated: (link: HostLink) => void;
  /** The link is gone (authenticated or not): forget it. */
  onClosed: (link: HostLink) => void;
}

interface Pending {
  kind: RequestKind;
  resolve: (result: Result<RelayReply>) => void;
  timer: TimerHandle;
}

/**
 * One host's link: the challenge and its answer, then the device connections multiplexed over it
 * (each a connId the relay allocates, never reused on this link) and the pair requests and calls
 * forwarded to it. Frames from the host are decoded and checked; an unknown type is counted and
 * skipped, anything malformed or out of place ends the link.
 */
export class HostLink implements HostEndpoint, PeerOwner {
  readonly peer: Peer;
  private id: string | undefined;
  private readonly challenge: Uint8Array | undefined;
  private readonly conns = new Map<number, Downstream>();
  private readonly pending = new Map<number, Pending>();
  private nextConnId = 1;
  private nextReqId = 1;
  private readonly pingNonce = new Uint8Array(8);

  constructor(
    port: PeerPort,
    private readonly deps: HostLinkDeps,
  ) {
    this.peer = new Peer(deps.peer, port, this);
    const challenge = makeRelayChallenge({ origin: deps.origin, clock: deps.clock, random: deps.random });
    if (!challenge.ok) {
      // The origin is checked when the relay starts; this cannot happen with a running relay.
      this.peer.close(CloseCode.ProtocolError, 'internal');
      return;
    }
    this.challenge = challenge.value;
    this.peer.send(challenge.value);
  }

  sendPing(): void {
    this.control({ type: 'ping', nonce: this.pingNonce });
  }

  received(bytes: Uint8Array): void {
    this.receive(bytes);
  }

  ended(): void {
    this.closed();
  }

  /** The proven host id; undefined until the host has answered the challenge. */
  get hostId(): string {
    return this.id ?? '';
  }

  get connections(): number {
    return this.conns.size;
  }

  get pendingRequests(): number {
    return this.pending.size;
  }

  openConn(downstream: Downstream, deviceId: string, source: string): Result<Upstream> {
    if (!this.peer.isOpen) return fail('host-offline', 'the host link is closing');
    if (this.conns.size >= this.deps.limits.maxDeviceConnsPerHost) {
      return fail('busy', 'the host has as many device connections as the relay allows');
    }
    const connId = this.nextConnId++;
    this.conns.set(connId, downstream);
    this.control({ type: 'open', connId, kind: 'device', deviceId, source });
    return ok(new LinkConn(this, connId));
  }

  request(kind: RequestKind, source: string, body: Uint8Array, signal?: AbortSignal): Promise<Result<RelayReply>> {
    if (!this.peer.isOpen) return Promise.resolve(fail('host-offline', 'the host is not connected'));
    if (this.pending.size >= this.deps.limits.maxPendingRequestsPerHost || !this.deps.requests.enter()) {
      this.deps.metrics.refuse('requests-full');
      return Promise.resolve(fail('busy', 'too many requests are waiting for this host; try again shortly'));
    }
    const reqId = this.nextReqId++;
    const waitMs = kind === 'pair' ? this.deps.limits.pairReplyWaitMs : this.deps.limits.callReplyWaitMs;
    return new Promise((resolve) => {
      const settle = (result: Result<RelayReply>) => {
        if (!this.pending.delete(reqId)) return;
        this.deps.clock.clearTimeout(entry.timer);
        this.deps.requests.leave();
        signal?.removeEventListener('abort', abort);
        resolve(result);
      };
      const abort = () => {
        this.deps.metrics.refuse('request-aborted');
        settle(fail('disconnected', 'the caller went away'));
      };
      const entry: Pending = {
        kind,
        resolve: settle,
        timer: this.deps.clock.setTimeout(() => {
          this.deps.metrics.refuse('request-timeout');
          settle(fail('timeout', 'the host did not answer in time'));
        }, waitMs),
      };
      this.pending.set(reqId, entry);
      signal?.addEventListener('abort', abort, { once: true });
      this.deps.metrics.request(kind);
      this.control({ type: kind === 'pair' ? 'pair-request' : 'call-request', reqId, source, body });
    });
  }

  private receive(bytes: Uint8Array): void {
    if (!this.peer.isAuthenticated) return this.authenticate(bytes);
    const decoded = decodeRelayFrame(bytes);
    if (!decoded.ok) {
      switch (decoded.error.code) {
        case 'unsupported':
          this.deps.metrics.drop('unknown-frame-type');
          return;
        case 'version-unsupported':
          return this.peer.close(CloseCode.VersionUnsupported, 'version-unsupported', 'frame-malformed');
        case 'too-large':
          return this.peer.close(RelayCloseCode.TooLarge, 'frame-too-large', 'frame-too-large');
        default:
          return this.peer.close(CloseCode.ProtocolError, 'frame-malformed', 'frame-malformed');
      }
    }
    const frame = decoded.value;
    switch (frame.type) {
      case 'data': {
        const conn = this.conns.get(frame.connId);
        if (!conn) return this.deps.metrics.drop('unknown-conn');
        this.deps.metrics.forwarded('to-device', frame.payload.length);
        return conn.send(frame.payload);
      }
      case 'close': {
        const conn = this.conns.get(frame.connId);
        if (!conn) return this.deps.metrics.drop('unknown-conn');
        this.conns.delete(frame.connId);
        return conn.close(frame.code, frame.reason);
      }
      case 'reply': {
        const entry = this.pending.get(frame.reqId);
        if (!entry) return this.deps.metrics.drop('reply-unknown-request');
        this.deps.metrics.replied(entry.kind);
        // The body is a view into the received message, which nothing else holds: no copy needed.
        return entry.resolve(ok({ status: frame.status, body: frame.body }));
      }
      case 'ping':
        return this.control({ type: 'pong', nonce: frame.nonce });
      case 'pong':
        return;
      default:
        return this.peer.close(CloseCode.ProtocolError, 'unexpected-frame', 'unexpected-frame');
    }
  }

  private authenticate(bytes: Uint8Array): void {
    const verified = verifyHostAuth(this.challenge!, bytes);
    if (!verified.ok) {
      const version = verified.error.code === 'version-unsupported';
      return this.peer.refuse(
        version ? CloseCode.VersionUnsupported : RelayCloseCode.AuthFailed,
        version ? 'version-unsupported' : verified.error.code === 'handshake-failed' ? 'auth-failed' : 'auth-malformed',
      );
    }
    this.id = verified.value.hostId;
    this.peer.authenticate(RELAY_MAX_LINK_MESSAGE);
    this.deps.metrics.accepted('host');
    this.control({
      type: 'ready',
      hostId: this.id,
      maxConnections: this.deps.limits.maxDeviceConnsPerHost,
      maxPayload: RELAY_MAX_PAYLOAD,
    });
    this.control({ type: 'about', servesApp: this.deps.servesApp });
    this.deps.onAuthenticated(this);
  }

  /** Device bytes toward the host, within that device's share of the link. */
  toHost(connId: number, bytes: Uint8Array): void {
    if (!this.conns.has(connId)) return;
    const frame = encodeRelayData(connId, bytes);
    if (!frame.ok) return this.closeConnForFault(connId, CloseCode.ProtocolError, 'frame-too-large');
    const verdict = this.peer.send(frame.value, connId);
    if (verdict === 'sent') return this.deps.metrics.forwarded('to-host', bytes.length);
    if (verdict === 'share-full') return this.closeConnForFault(connId, CloseCode.SlowConsumer, 'host-queue-full');
    this.onRefused(verdict);
  }

  /** The host is to link again now (once it is authenticated): this node is stopping, or the
   * host's claim in Redis moved without a newer link announcing itself. */
  drain(): void {
    if (this.id !== undefined) this.control({ type: 'drain' });
  }

  /** A control frame (open, close, request, ping, pong): bounded by the link's total only. */
  private control(frame: RelayFrame): void {
    const bytes = encodeRelayFrame(frame);
    if (!bytes.ok) return this.peer.close(CloseCode.ProtocolError, 'internal');
    const verdict = this.peer.send(bytes.value, CONTROL);
    if (verdict !== 'sent') this.onRefused(verdict);
  }

  private onRefused(verdict: OutboxVerdict): void {
    if (verdict === 'closed') return;
    const drop: DropReason = verdict === 'budget-full' ? 'node-memory' : 'host-link-slow';
    this.peer.close(CloseCode.SlowConsumer, drop, drop);
  }

  /** A device connection ended on the device's side: tell the host. */
  endConn(connId: number, code: number, reason: string): void {
    if (!this.conns.delete(connId)) return;
    // A code a close frame cannot carry (1005 none, 1006 abnormal end) reaches the host as 1001.
    this.control({ type: 'close', connId, code: isSendableCloseCode(code) ? code : 1001, reason: clipReason(reason) });
  }

  /** The relay ends a device connection for a fault: close the device, tell the host. */
  private closeConnForFault(connId: number, code: number, reason: DropReason): void {
    const conn = this.conns.get(connId);
    if (!conn) return;
    this.deps.metrics.drop(reason);
    conn.close(code, reason);
    this.endConn(connId, code, reason);
  }

  private closed(): void {
    for (const conn of this.conns.values()) conn.close(RelayCloseCode.HostGone, 'host-gone');
    this.conns.clear();
    for (const entry of [...this.pending.values()]) entry.resolve(fail('host-offline', 'the host link closed'));
    this.deps.onClosed(this);
  }
}

/** One device connection on a host's link, as the device's side sees it (an object, not closures:
 * there is one per device). */
class LinkConn implements Upstream {
  constructor(
    private readonly link: HostLink,
    private readonly connId: number,
  ) {}

  send(bytes: Uint8Array): void {
    this.link.toHost(this.connId, bytes);
  }

  close(code: number, reason: string): void {
    this.link.endConn(this.connId, code, reason);
  }
}
