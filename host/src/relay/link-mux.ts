import type { ProtocolError, RelayFrame } from '@tether/shared-protocol';
import { CloseCode, encodeRelayData, isSendableCloseCode, protocolError, utf8Encode } from '@tether/shared-protocol';
import type { SharedPath } from '../gateway/gateway-transport.js';
import type { PairChannel } from '../gateway/pairing-service.js';
import type { LinkPhase } from './link-phase.js';
import { MAX_CONN_QUEUED_BYTES, MAX_LINK_QUEUED_BYTES, MAX_LINK_REQUESTS } from './link-limits.js';
import type { LinkSocket } from './link-socket.js';
import type { LinkGateway } from './link-types.js';
import type { ConnLink } from './relay-conn.js';
import { RelayConn } from './relay-conn.js';
import type { RelayReply } from './relay-requests.js';
import { answerCall, answerPairRequest } from './relay-requests.js';

/** The live frames the multiplexer carries once the link is up. */
export type LiveFrame = Extract<RelayFrame, { type: 'open' | 'data' | 'close' | 'pair-request' | 'call-request' }>;

/** What the multiplexer needs of the link it rides on. */
export interface MuxLink {
  readonly phase: LinkPhase;
  readonly socket: LinkSocket;
  /** Sends a frame of the link's own (encoded; counted and dropped if it cannot be). */
  control(frame: RelayFrame): void;
}

/**
 * The device connections the relay opens on one link (each a GatewayTransport for the device
 * gateway), what each has queued, and the pair requests and calls waiting for their answers.
 * The link (`LinkSession`) says when it is up and when it ends; this carries what flows meanwhile.
 */
export class LinkMux implements ConnLink {
  readonly conns = new Map<number, RelayConn>();
  /** Bytes handed to the socket and not yet written. */
  private queued = 0;
  private readonly requests = new Set<AbortController>();
  /** The link's bounds as its connections share them (share links' viewers leave the devices room). */
  readonly path: SharedPath = {
    room: () => (this.link.phase.name === 'linked' ? this.link.phase.maxConnections : 0) - this.conns.size,
    pressure: () => this.queued / MAX_LINK_QUEUED_BYTES,
  };

  constructor(
    private readonly link: MuxLink,
    private readonly gateway: LinkGateway,
    /** The relay's origin, as the host was given its URL (and checked its challenge against). */
    private readonly origin: string,
  ) {}

  /**
   * How every pair request this link carries reached the host. A relay is reached over HTTPS
   * (or loopback), so nobody on the network changed the page. A browser posts a pair request to a
   * relay only from the relay's own origin (it answers no cross-origin pair request; the app on
   * another origin pairs with the host directly). So through a relay that serves the app, the app
   * was that relay's page, or a program holding the pairing link sent the request; through one that
   * serves none (or does not say), no page of it did: a program did, and which page showed it the
   * link, the relay cannot know.
   */
  private pairChannel(): PairChannel {
    const app = this.link.phase.name === 'linked' && this.link.phase.servesApp;
    return { secure: true, page: { from: 'relay', origin: this.origin, app } };
  }

  /** A device connection's bytes, as a `data` frame, within its share of what the link may queue. */
  sendData(conn: RelayConn, payload: Uint8Array): void {
    if (this.link.phase.name !== 'linked' || this.conns.get(conn.connId) !== conn) return;
    const frame = encodeRelayData(conn.connId, payload);
    if (!frame.ok) {
      this.gateway.stats.add('relay:frame-too-large');
      return conn.close(CloseCode.ProtocolError, 'frame-too-large');
    }
    const size = frame.value.length;
    if (conn.queued + size > MAX_CONN_QUEUED_BYTES || this.queued + size > MAX_LINK_QUEUED_BYTES) {
      this.gateway.stats.add(
        conn.queued + size > MAX_CONN_QUEUED_BYTES ? 'relay:conn-queue-full' : 'relay:link-queue-full',
      );
      return conn.close(CloseCode.SlowConsumer, 'slow-consumer');
    }
    conn.queued += size;
    this.queued += size;
    this.link.socket.send(frame.value, () => {
      conn.queued -= size;
      this.queued -= size;
    });
  }

  /** The gateway ended a device connection: the relay closes the device's socket with its code. */
  endConn(conn: RelayConn, code: number, reason: string): void {
    if (this.link.phase.name === 'closed' || this.conns.get(conn.connId) !== conn) return;
    this.conns.delete(conn.connId);
    this.link.control({
      type: 'close',
      connId: conn.connId,
      code: isSendableCloseCode(code) ? code : CloseCode.Normal,
      reason: clip(reason),
    });
  }

  /** A frame that only a linked session carries. */
  carry(frame: LiveFrame): void {
    switch (frame.type) {
      case 'open': {
        const conn = new RelayConn(frame.connId, frame.deviceId, frame.source, this);
        this.conns.set(frame.connId, conn);
        this.gateway.stats.add('relay:open');
        this.gateway.accept(conn);
        return;
      }
      case 'data':
        return this.conns.get(frame.connId)?.deliver(frame.payload);
      case 'close': {
        const conn = this.conns.get(frame.connId);
        this.conns.delete(frame.connId);
        return conn?.finish({ code: frame.code, reason: frame.reason });
      }
      default:
        return this.request(frame);
    }
  }

  /** Every device connection is closed (the relay closes their sockets too), every waiting request
   * given up. */
  end(info: { code: number; reason: string }): void {
    for (const conn of this.conns.values()) conn.finish(info);
    this.conns.clear();
    for (const controller of this.requests) controller.abort();
    this.requests.clear();
  }

  private request(frame: Extract<RelayFrame, { type: 'pair-request' | 'call-request' }>): void {
    if (this.requests.size >= MAX_LINK_REQUESTS) {
      this.gateway.stats.add('relay:requests-full');
      const body = utf8Encode(JSON.stringify({ error: busy() }));
      return this.link.control({ type: 'reply', reqId: frame.reqId, status: 503, body });
    }
    const controller = new AbortController();
    this.requests.add(controller);
    // Copied: the body is a view into a received message, and the answer may take the person's time.
    const body = frame.body.slice();
    const answer: Promise<RelayReply> =
      frame.type === 'pair-request'
        ? answerPairRequest(this.gateway, body, frame.source, controller.signal, this.pairChannel())
        : answerCall(this.gateway, body, frame.source);
    void answer.then((reply) => {
      this.requests.delete(controller);
      if (this.link.phase.name !== 'linked') return;
      this.link.control({ type: 'reply', reqId: frame.reqId, status: reply.status, body: reply.body });
    });
  }
}

const busy = (): ProtocolError => protocolError('busy', 'too many requests are waiting');

/** A close reason the relay can pass on: at most 123 bytes of text. */
function clip(reason: string): string {
  let out = reason.slice(0, 123);
  while (utf8Encode(out).length > 123) out = out.slice(0, -1);
  return out;
}
