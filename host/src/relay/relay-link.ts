import type {
  BackoffOptions,
  Clock,
  HostIdentity,
  ProtocolError,
  RandomBytes,
  ReconnectState,
  RelayFrame,
  Result,
  TimerHandle,
} from '@tether/shared-protocol';
import {
  CloseCode,
  Reconnector,
  RelayCloseCode,
  answerRelayChallenge,
  decodeRelayFrame,
  encodeRelayData,
  encodeRelayFrame,
  isSendableCloseCode,
  protocolError,
  relayCloseToError,
  relayHostLinkUrl,
  relayOrigin,
  jitterFrom,
  relayRefusesForGood,
  utf8Encode,
} from '@tether/shared-protocol';
import type { GatewayTransport } from '../gateway/gateway-transport.js';
import type { PairChannel } from '../gateway/pairing-service.js';
import type { DialRelay, LinkSocket } from './link-socket.js';
import {
  LINK_DEAD_MS,
  LINK_PING_MS,
  LINK_READY_DEADLINE_MS,
  MAX_CONN_QUEUED_BYTES,
  MAX_LINK_QUEUED_BYTES,
  MAX_LINK_REQUESTS,
} from './link-limits.js';
import type { ConnLink } from './relay-conn.js';
import { RelayConn } from './relay-conn.js';
import type { RelayReply, RequestGateway } from './relay-requests.js';
import { answerCall, answerPairRequest } from './relay-requests.js';

export type RelayLinkState =
  | ReconnectState
  | { name: 'linked' }
  /** The relay refused this host for good, or the link was stopped: it does not dial again. */
  | { name: 'stopped'; error: ProtocolError };

/** The device gateway, as a relay link uses it: connections, pair requests and calls. */
export interface LinkGateway extends RequestGateway {
  accept(transport: GatewayTransport): Result<unknown>;
}

export interface RelayLinkOptions {
  /** The relays' public URLs (`https://relay.example.com`), most preferred first: the link is to
   * one at a time, and moves to the next in turn when it drops or a dial fails. */
  urls: readonly string[];
  identity: HostIdentity;
  gateway: LinkGateway;
  clock: Clock;
  random: RandomBytes;
  dial: DialRelay;
  backoff?: BackoffOptions;
  onState?: (state: RelayLinkState) => void;
}

/** One dialled socket and everything that lives and dies with it. */
interface Session {
  socket: LinkSocket;
  phase: 'opening' | 'challenged' | 'linked' | 'closed';
  conns: Map<number, RelayConn>;
  /** Bytes handed to the socket and not yet written. */
  queued: number;
  requests: Set<AbortController>;
  lastHeard: number;
  readyTimer: TimerHandle | undefined;
  /** The host's connections the relay carries at most (its `ready`). */
  maxConnections: number;
}

/**
 * The host's link to a relay (`tether start --relay URL`): the second transport adapter in front
 * of the device gateway, beside the LAN listener. It dials `WS /relay/host`, proves the host's id
 * by signing the relay's challenge (after checking the relay names the origin it meant to reach,
 * at about the present time), then carries the device connections the relay opens on it, each a
 * GatewayTransport, and answers the pair requests and one-shot calls the relay forwards.
 *
 * It keeps the link: a drop is dialled again with jittered exponential backoff on the injected
 * clock, a link that stays silent for LINK_DEAD_MS is taken for dead, and a relay that refuses the
 * host for good (a newer link took over, the signature did not hold, another version, a relay
 * that names another origin) stops it with the reason. With several relays, every drop and every
 * failed dial moves to the next relay in the list (round and round): a link that had been up is
 * dialled again at the backoff's first step (at most 500 ms), so a host whose relay dies is on
 * another one well within 2 s, and its devices find it there (they know the list).
 */
export class RelayLink implements ConnLink {
  private stateValue: RelayLinkState = { name: 'idle' };
  private session: Session | undefined;
  private readonly reconnector: Reconnector;
  private pingTimer: TimerHandle | undefined;
  private sinceValue: number;
  /** The relay's clock minus this one, from the last challenge (ms). */
  skewMs: number | undefined;
  private readonly pingNonce: Uint8Array;
  /** Which of `options.urls` the link is dialling or on. */
  private index = 0;
  /**
   * How every pair request this link carries reached the host. A relay is reached over HTTPS (or
   * loopback), so nobody on the network changed the page; but the page was the relay's: a browser
   * posts a pair request to a relay only from the relay's own origin (it answers no cross-origin
   * pair request), and the app on another origin pairs with the host directly. So the app was served by
   * whoever runs this relay, which the host names by the URL it was given and checked the relay's
   * challenge against.
   */

  constructor(private readonly options: RelayLinkOptions) {
    this.sinceValue = options.clock.now();
    this.pingNonce = options.random(8);
    this.reconnector = new Reconnector({
      clock: options.clock,
      jitter: jitterFrom(options.random),
      ...(options.backoff ? { backoff: options.backoff } : {}),
    });
  }

  private get pairChannel(): PairChannel {
    return { secure: true, page: { from: 'relay', origin: relayOrigin(this.url) ?? this.url } };
  }

  get state(): RelayLinkState {
    return this.stateValue;
  }

  /** When the link reached its current state. */
  get since(): number {
    return this.sinceValue;
  }

  /** The relay the link is on, or dialling. */
  get url(): string {
    return this.options.urls[this.index]!;
  }

  /** Every relay the link may use, most preferred first. */
  get urls(): readonly string[] {
    return this.options.urls;
  }

  /** Device connections open through the relay now. */
  get connections(): number {
    return this.session?.conns.size ?? 0;
  }

  /** The link's bounds as its connections share them (share links' viewers leave the devices room). */
  readonly path = {
    room: () => (this.session ? this.session.maxConnections - this.session.conns.size : 0),
    pressure: () => (this.session?.queued ?? 0) / MAX_LINK_QUEUED_BYTES,
  };

  start(): void {
    if (this.stateValue.name !== 'idle') return;
    this.dial();
  }

  /** Closes the link for good (the host is stopping): its devices are told the host went away. */
  stop(): void {
    if (this.stateValue.name === 'stopped') return;
    this.reconnector.stop();
    this.setState({ name: 'stopped', error: protocolError('unavailable', 'the host stopped its relay link') });
    const session = this.session;
    if (!session) return;
    this.endSession(session, { code: CloseCode.GoingAway, reason: 'host-stopping' });
    session.socket.close(CloseCode.GoingAway, 'host-stopping');
  }

  /** A device connection's bytes, as a `data` frame, within its share of what the link may queue. */
  sendData(conn: RelayConn, payload: Uint8Array): void {
    const session = this.session;
    if (!session || session.phase !== 'linked' || session.conns.get(conn.connId) !== conn) return;
    const frame = encodeRelayData(conn.connId, payload);
    if (!frame.ok) {
      this.options.gateway.stats.add('relay:frame-too-large');
      return conn.close(CloseCode.ProtocolError, 'frame-too-large');
    }
    const size = frame.value.length;
    if (conn.queued + size > MAX_CONN_QUEUED_BYTES || session.queued + size > MAX_LINK_QUEUED_BYTES) {
      this.options.gateway.stats.add(
        conn.queued + size > MAX_CONN_QUEUED_BYTES ? 'relay:conn-queue-full' : 'relay:link-queue-full',
      );
      return conn.close(CloseCode.SlowConsumer, 'slow-consumer');
    }
    conn.queued += size;
    session.queued += size;
    session.socket.send(frame.value, () => {
      conn.queued -= size;
      session.queued -= size;
    });
  }

  /** The gateway ended a device connection: the relay closes the device's socket with its code. */
  endConn(conn: RelayConn, code: number, reason: string): void {
    const session = this.session;
    if (!session || session.conns.get(conn.connId) !== conn) return;
    session.conns.delete(conn.connId);
    this.control(session, {
      type: 'close',
      connId: conn.connId,
      code: isSendableCloseCode(code) ? code : CloseCode.Normal,
      reason: clip(reason),
    });
  }

  private dial(): void {
    const url = relayHostLinkUrl(this.url);
    if (!url) {
      this.reconnector.stop();
      return this.setState({
        name: 'stopped',
        error: protocolError('invalid-params', `${this.url} is not a relay URL`),
      });
    }
    this.setState({ name: 'connecting', attempt: this.reconnector.dialling() });
    const socket = this.options.dial(url);
    const session: Session = {
      socket,
      phase: 'opening',
      conns: new Map(),
      maxConnections: 0,
      queued: 0,
      requests: new Set(),
      lastHeard: this.options.clock.now(),
      readyTimer: undefined,
    };
    this.session = session;
    session.readyTimer = this.options.clock.setTimeout(() => {
      session.readyTimer = undefined;
      if (session.phase !== 'linked') {
        this.options.gateway.stats.add('relay:ready-timeout');
        this.drop(session, protocolError('timeout', 'the relay did not accept the link in time'));
      }
    }, LINK_READY_DEADLINE_MS);
    socket.onMessage = (bytes) => {
      if (this.session !== session) return;
      session.lastHeard = this.options.clock.now();
      this.receive(session, bytes);
    };
    socket.onClose = (code, reason) => {
      if (this.session !== session) return;
      this.closed(session, code, reason);
    };
  }

  private receive(session: Session, bytes: Uint8Array): void {
    const decoded = decodeRelayFrame(bytes);
    if (!decoded.ok) {
      if (decoded.error.code === 'unsupported') {
        // A newer relay may send what this host does not know: counted and skipped.
        this.options.gateway.stats.add('relay:unknown-frame');
        return;
      }
      this.options.gateway.stats.add('relay:frame-malformed');
      return this.drop(session, decoded.error, CloseCode.ProtocolError, 'frame-malformed');
    }
    const frame = decoded.value;
    if (session.phase !== 'linked') return this.authenticate(session, frame, bytes);
    switch (frame.type) {
      case 'open': {
        const conn = new RelayConn(frame.connId, frame.deviceId, frame.source, this);
        session.conns.set(frame.connId, conn);
        this.options.gateway.stats.add('relay:open');
        this.options.gateway.accept(conn);
        return;
      }
      case 'data':
        return session.conns.get(frame.connId)?.deliver(frame.payload);
      case 'close': {
        const conn = session.conns.get(frame.connId);
        session.conns.delete(frame.connId);
        return conn?.finish({ code: frame.code, reason: frame.reason });
      }
      case 'pair-request':
      case 'call-request':
        return this.request(session, frame);
      case 'ping':
        return this.control(session, { type: 'pong', nonce: frame.nonce });
      case 'pong':
        return;
      case 'drain':
        return this.drained(session);
      default:
        this.options.gateway.stats.add('relay:unexpected-frame');
        return this.drop(
          session,
          protocolError('frame-malformed', `the relay sent ${frame.type} on a live link`),
          CloseCode.ProtocolError,
          'unexpected-frame',
        );
    }
  }

  /** Before `ready`: the challenge, answered once, then `ready` naming this host. */
  private authenticate(session: Session, frame: RelayFrame, bytes: Uint8Array): void {
    if (frame.type === 'ping') return this.control(session, { type: 'pong', nonce: frame.nonce });
    if (frame.type === 'challenge' && session.phase === 'opening') {
      this.skewMs = frame.time - this.options.clock.now();
      const answer = answerRelayChallenge(bytes, this.options.identity.sign, {
        relayUrl: this.url,
        clock: this.options.clock,
      });
      if (!answer.ok) {
        if (answer.error.code === 'handshake-failed') {
          // Asking again would get the same answer: this URL leads to a relay that calls itself
          // something else, and signing its challenge would vouch for the wrong relay.
          return this.refused(
            session,
            protocolError(
              'handshake-failed',
              `the relay at ${this.url} names itself ${frame.origin}, not ${relayOrigin(this.url) ?? '?'}: check the URL, or the relay's --public-url`,
            ),
          );
        }
        const stale = answer.error.code === 'handshake-stale';
        return this.drop(
          session,
          stale
            ? protocolError(
                'handshake-stale',
                `the relay's clock is ${Math.round(Math.abs(this.skewMs) / 1000)} s ${this.skewMs > 0 ? 'ahead of' : 'behind'} this computer's: check the time here`,
              )
            : answer.error,
          CloseCode.ProtocolError,
          answer.error.code,
        );
      }
      session.phase = 'challenged';
      return session.socket.send(answer.value, () => undefined);
    }
    if (frame.type === 'ready' && session.phase === 'challenged') {
      if (frame.hostId !== this.options.identity.hostId) {
        return this.drop(
          session,
          protocolError('handshake-failed', 'the relay accepted the link for another host id'),
          CloseCode.ProtocolError,
          'auth-failed',
        );
      }
      session.maxConnections = frame.maxConnections;
      return this.linked(session);
    }
    this.options.gateway.stats.add('relay:unexpected-frame');
    this.drop(
      session,
      protocolError('handshake-malformed', `the relay sent ${frame.type} before the link was ready`),
      CloseCode.ProtocolError,
      'unexpected-frame',
    );
  }

  private linked(session: Session): void {
    session.phase = 'linked';
    if (session.readyTimer !== undefined) this.options.clock.clearTimeout(session.readyTimer);
    session.readyTimer = undefined;
    this.reconnector.opened();
    this.setState({ name: 'linked' });
    this.schedulePing(session);
  }

  private schedulePing(session: Session): void {
    this.clearPing();
    this.pingTimer = this.options.clock.setTimeout(() => {
      this.pingTimer = undefined;
      if (this.session !== session || session.phase !== 'linked') return;
      const silent = this.options.clock.now() - session.lastHeard;
      if (silent >= LINK_DEAD_MS) {
        this.options.gateway.stats.add('relay:dead');
        // A dead peer answers no close handshake: the socket goes at once.
        session.socket.terminate();
        return this.closed(session, CloseCode.PingTimeout, 'ping-timeout');
      }
      if (silent >= LINK_PING_MS) this.control(session, { type: 'ping', nonce: this.pingNonce });
      this.schedulePing(session);
    }, LINK_PING_MS);
  }

  private request(session: Session, frame: Extract<RelayFrame, { type: 'pair-request' | 'call-request' }>): void {
    if (session.requests.size >= MAX_LINK_REQUESTS) {
      this.options.gateway.stats.add('relay:requests-full');
      const body = utf8Encode(JSON.stringify({ error: protocolError('busy', 'too many requests are waiting') }));
      return this.control(session, { type: 'reply', reqId: frame.reqId, status: 503, body });
    }
    const controller = new AbortController();
    session.requests.add(controller);
    // Copied: the body is a view into a received message, and the answer may take the person's time.
    const body = frame.body.slice();
    const answer: Promise<RelayReply> =
      frame.type === 'pair-request'
        ? answerPairRequest(this.options.gateway, body, frame.source, controller.signal, this.pairChannel)
        : answerCall(this.options.gateway, body, frame.source);
    void answer.then((reply) => {
      session.requests.delete(controller);
      if (this.session !== session || session.phase !== 'linked') return;
      this.control(session, { type: 'reply', reqId: frame.reqId, status: reply.status, body: reply.body });
    });
  }

  private control(session: Session, frame: RelayFrame): void {
    const bytes = encodeRelayFrame(frame);
    if (!bytes.ok) {
      // Every frame here is built by this file from checked values; a reply over the relay's
      // size cap is the one way to get here, and the relay answers the caller with a timeout.
      this.options.gateway.stats.add(`relay:encode-${bytes.error.code}`);
      return;
    }
    session.socket.send(bytes.value, () => undefined);
  }

  /**
   * The relay node is stopping and asks the host to link again now. The message can come only from
   * the relay this link proved itself to: it arrives on the link's own socket, after `ready`, and
   * device bytes reach the host only inside `data` frames. So nothing but that relay can move the
   * host. It dials at once, without a backoff: the next relay in the list, or the same URL, which
   * a load balancer sends to another node (the stopping one refuses new links).
   */
  private drained(session: Session): void {
    this.options.gateway.stats.add('relay:drain');
    session.socket.close(CloseCode.GoingAway, 'relay-draining');
    this.endSession(session, { code: RelayCloseCode.HostGone, reason: 'host-gone' });
    this.reconnector.reset();
    this.index = (this.index + 1) % this.options.urls.length;
    this.dial();
  }

  /** Ends the session from this side and dials again after a backoff. */
  private drop(session: Session, error: ProtocolError, code: number = CloseCode.Normal, reason = 'relinking'): void {
    session.socket.close(code, reason);
    this.endSession(session, { code: RelayCloseCode.HostGone, reason: 'host-gone' });
    this.retry(error);
  }

  /** The relay refused this host in a way no retry can fix. */
  private refused(session: Session, error: ProtocolError): void {
    session.socket.close(CloseCode.Normal, error.code);
    this.endSession(session, { code: RelayCloseCode.HostGone, reason: 'host-gone' });
    this.reconnector.stop();
    this.setState({ name: 'stopped', error });
  }

  /** The socket closed under the session: for good, or for a retry. */
  private closed(session: Session, code: number, reason: string): void {
    const wasLinked = session.phase === 'linked';
    this.endSession(session, { code: RelayCloseCode.HostGone, reason: 'host-gone' });
    if (this.stateValue.name === 'stopped') return;
    const error = protocolError(relayCloseToError(code, reason), closeMessage(this.url, code, reason));
    if (relayRefusesForGood(code)) {
      this.reconnector.stop();
      this.setState({ name: 'stopped', error });
      return;
    }
    if (wasLinked) this.reconnector.reset();
    this.retry(error);
  }

  /** Closes every device connection of the session (the relay closes their sockets too). */
  private endSession(session: Session, info: { code: number; reason: string }): void {
    if (session.phase === 'closed') return;
    session.phase = 'closed';
    if (this.session === session) this.session = undefined;
    if (session.readyTimer !== undefined) this.options.clock.clearTimeout(session.readyTimer);
    this.clearPing();
    for (const conn of session.conns.values()) conn.finish(info);
    session.conns.clear();
    for (const controller of session.requests) controller.abort();
    session.requests.clear();
    session.socket.onMessage = null;
    session.socket.onClose = null;
  }

  /** After a drop or a failed dial: waits out the backoff, then dials the next relay in turn. */
  private retry(error: ProtocolError): void {
    if (this.stateValue.name === 'stopped') return;
    this.index = (this.index + 1) % this.options.urls.length;
    const plan = this.reconnector.retry(() => {
      if (this.stateValue.name === 'waiting') this.dial();
    });
    if (plan) this.setState({ name: 'waiting', attempt: plan.attempt, retryAt: plan.retryAt, error });
  }

  private clearPing(): void {
    if (this.pingTimer !== undefined) this.options.clock.clearTimeout(this.pingTimer);
    this.pingTimer = undefined;
  }

  private setState(state: RelayLinkState): void {
    this.stateValue = state;
    this.sinceValue = this.options.clock.now();
    this.options.onState?.(state);
  }
}

/** What a close of the link means, in words for the person at the computer. */
function closeMessage(url: string, code: number, reason: string): string {
  switch (code) {
    case RelayCloseCode.Replaced:
      return `a newer link for this host took over at ${url}: another \`tether start\` with this host's key is running; this one stopped its link`;
    case RelayCloseCode.AuthFailed:
      return `the relay at ${url} did not accept this host's signature`;
    case CloseCode.VersionUnsupported:
      return `the relay at ${url} speaks another version of the relay protocol: update Tether or the relay`;
    case RelayCloseCode.GoingAway:
      return `the relay at ${url} is shutting down; relinking`;
    default:
      return `the link to ${url} closed (${code}${reason ? ` ${reason}` : ''}); relinking`;
  }
}

/** A close reason the relay can pass on: at most 123 bytes of text. */
function clip(reason: string): string {
  let out = reason.slice(0, 123);
  while (utf8Encode(out).length > 123) out = out.slice(0, -1);
  return out;
}
