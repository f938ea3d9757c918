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
  jitterFrom,
  protocolError,
  relayCloseToError,
  relayHostLinkUrl,
  relayOrigin,
  relayRefusesForGood,
} from '@tether/shared-protocol';
import type { GatewayTransport } from '../gateway/gateway-transport.js';
import type { DialRelay } from './link-socket.js';
import { LINK_DEAD_MS, LINK_PING_MS, LINK_READY_DEADLINE_MS, LINK_STABLE_MS } from './link-limits.js';
import { LinkSession } from './link-session.js';
import type { RelayEntry } from './relay-roster.js';
import { RelayRoster } from './relay-roster.js';
import type { RequestGateway } from './relay-requests.js';
import { closeMessage, holdMessage } from './relay-words.js';

export type RelayLinkState =
  | ReconnectState
  | { name: 'linked' }
  /** The host stopped its link (it is shutting down): nothing a relay says ever gets here. */
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
  /** A relay refused this host and is passed over until `retryAt` (its entry says why). */
  onHeld?: (entry: RelayEntry) => void;
}

/**
 * The host's link to a relay (`tether start --relay URL`): the second transport adapter in front
 * of the device gateway, beside the LAN listener. It dials `WS /relay/host`, proves the host's id
 * by signing the relay's challenge (after checking the relay names the origin it meant to reach,
 * at about the present time), then carries the device connections the relay opens on it (a
 * `LinkSession`) and answers the pair requests and one-shot calls the relay forwards.
 *
 * It keeps the link, and only the host stops it. A drop is dialled again with jittered exponential
 * backoff on the injected clock; a link that ends within LINK_STABLE_MS of coming up, however it
 * ended (a close, a `drain`), counts as a failure, so the backoff keeps growing. With several
 * relays, every drop and every failed dial moves to the next relay in the list (round and round):
 * a link that had been up is dialled again at the backoff's first step (at most 500 ms), so a host
 * whose relay dies is on another one well within 2 s. A relay's refusal (a newer link took over,
 * the signature did not hold, another version, another origin than its URL) is its word about
 * itself: that relay is passed over for a while that grows with each refusal (`RelayRoster`), the
 * others are dialled meanwhile, and it is asked again later.
 */
export class RelayLink {
  private stateValue: RelayLinkState = { name: 'idle' };
  private session: LinkSession | undefined;
  private readonly reconnector: Reconnector;
  private readonly roster: RelayRoster;
  private pingTimer: TimerHandle | undefined;
  private sinceValue: number;
  /** The relay's clock minus this one, from the last challenge (ms). */
  skewMs: number | undefined;
  private readonly pingNonce: Uint8Array;
  /** Which of `options.urls` the link is dialling or on. */
  private index = 0;

  constructor(private readonly options: RelayLinkOptions) {
    this.sinceValue = options.clock.now();
    this.pingNonce = options.random(8);
    const jitter = jitterFrom(options.random);
    this.reconnector = new Reconnector({
      clock: options.clock,
      jitter,
      stableMs: LINK_STABLE_MS,
      ...(options.backoff ? { backoff: options.backoff } : {}),
    });
    this.roster = new RelayRoster(options.urls, options.clock, jitter);
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

  /** Each relay's standing, in the order given. */
  get relays(): readonly RelayEntry[] {
    return this.roster.entries;
  }

  /** Device connections open through the relay now. */
  get connections(): number {
    return this.session?.conns.size ?? 0;
  }

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

  private dial(): void {
    const url = relayHostLinkUrl(this.url);
    if (!url) {
      // The URLs are checked before the link is made (`relayUrls`); one that is not is held.
      this.roster.hold(this.index, protocolError('invalid-params', `${this.url} is not a relay URL`));
      return this.retry(protocolError('invalid-params', `${this.url} is not a relay URL`));
    }
    this.setState({ name: 'connecting', attempt: this.reconnector.dialling() });
    this.roster.set(this.index, { name: 'connecting' });
    const session = new LinkSession(
      this.options.dial(url),
      this.options.gateway,
      this.options.clock,
      relayOrigin(this.url) ?? this.url,
    );
    this.session = session;
    session.readyTimer = this.options.clock.setTimeout(() => {
      session.readyTimer = undefined;
      if (session.phase !== 'linked') {
        this.options.gateway.stats.add('relay:ready-timeout');
        this.drop(session, protocolError('timeout', 'the relay did not accept the link in time'));
      }
    }, LINK_READY_DEADLINE_MS);
    session.socket.onMessage = (bytes) => {
      if (this.session !== session) return;
      session.lastHeard = this.options.clock.now();
      this.receive(session, bytes);
    };
    session.socket.onClose = (code, reason) => {
      if (this.session !== session) return;
      this.closed(session, code, reason);
    };
  }

  private receive(session: LinkSession, bytes: Uint8Array): void {
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
      case 'open':
      case 'data':
      case 'close':
      case 'pair-request':
      case 'call-request':
        return session.carry(frame);
      case 'ping':
        return session.control({ type: 'pong', nonce: frame.nonce });
      case 'pong':
        return;
      case 'drain':
        return this.drained(session);
      case 'about':
        session.servesApp = frame.servesApp;
        return;
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
  private authenticate(session: LinkSession, frame: RelayFrame, bytes: Uint8Array): void {
    if (frame.type === 'ping') return session.control({ type: 'pong', nonce: frame.nonce });
    if (frame.type === 'challenge' && session.phase === 'opening') {
      this.skewMs = frame.time - this.options.clock.now();
      const answer = answerRelayChallenge(bytes, this.options.identity.sign, {
        relayUrl: this.url,
        clock: this.options.clock,
      });
      if (!answer.ok) {
        if (answer.error.code === 'handshake-failed') {
          // This URL leads to a relay that calls itself something else (a wrong --public-url, or
          // something in between): signing its challenge would vouch for the wrong relay.
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

  private linked(session: LinkSession): void {
    session.phase = 'linked';
    if (session.readyTimer !== undefined) this.options.clock.clearTimeout(session.readyTimer);
    session.readyTimer = undefined;
    this.reconnector.opened();
    this.roster.set(this.index, { name: 'linked' });
    this.setState({ name: 'linked' });
    this.schedulePing(session);
  }

  private schedulePing(session: LinkSession): void {
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
      if (silent >= LINK_PING_MS) session.control({ type: 'ping', nonce: this.pingNonce });
      this.schedulePing(session);
    }, LINK_PING_MS);
  }

  /**
   * The relay asks the host to link again now (its node is stopping, or the host's claim moved).
   * It can come only from the relay this link proved itself to: it arrives on the link's own
   * socket, after `ready`, and device bytes reach the host only inside `data` frames. A link that
   * has been up LINK_STABLE_MS dials at once, without a backoff: the next relay in the list, or the
   * same URL, which a load balancer sends to another node (the stopping one refuses new links).
   * One that had only just come up waits out the backoff, as after any short-lived link.
   */
  private drained(session: LinkSession): void {
    this.options.gateway.stats.add('relay:drain');
    const stable = this.reconnector.stable;
    session.socket.close(CloseCode.GoingAway, 'relay-draining');
    this.endSession(session, { code: RelayCloseCode.HostGone, reason: 'host-gone' });
    this.roster.set(this.index, { name: 'standby' });
    if (!stable) {
      return this.retry(
        protocolError('disconnected', `the relay at ${this.url} asked this host to link again right after it linked`),
      );
    }
    this.reconnector.reset();
    this.index = this.roster.next(this.index).index;
    this.dial();
  }

  /** Ends the session from this side and dials again after a backoff. */
  private drop(
    session: LinkSession,
    error: ProtocolError,
    code: number = CloseCode.Normal,
    reason = 'relinking',
  ): void {
    session.socket.close(code, reason);
    this.endSession(session, { code: RelayCloseCode.HostGone, reason: 'host-gone' });
    this.roster.set(this.index, { name: 'failed', error });
    this.retry(error);
  }

  /** The relay refused this host: that relay is held for a while, the link goes on with the others. */
  private refused(session: LinkSession, error: ProtocolError, closeCode = CloseCode.Normal): void {
    session.socket.close(closeCode, error.code);
    this.endSession(session, { code: RelayCloseCode.HostGone, reason: 'host-gone' });
    const waitMs = this.roster.hold(this.index, error);
    const entry = this.roster.entries[this.index]!;
    this.options.onHeld?.(entry);
    this.retry(protocolError(error.code, holdMessage(error.message, waitMs, this.urls.length > 1)));
  }

  /** The socket closed under the session: a refusal of this relay, or a drop. */
  private closed(session: LinkSession, code: number, reason: string): void {
    const error = protocolError(relayCloseToError(code, reason), closeMessage(this.url, code, reason));
    if (relayRefusesForGood(code)) return this.refused(session, error);
    this.endSession(session, { code: RelayCloseCode.HostGone, reason: 'host-gone' });
    this.roster.set(this.index, { name: 'failed', error });
    this.retry(error);
  }

  private endSession(session: LinkSession, info: { code: number; reason: string }): void {
    if (this.session === session) this.session = undefined;
    this.clearPing();
    session.end(info);
  }

  /**
   * After a drop, a failed dial or a refusal: waits out the backoff (and, when every relay is held,
   * until the first hold ends), then dials the next relay in turn that is not held.
   */
  private retry(error: ProtocolError): void {
    if (this.stateValue.name === 'stopped') return;
    const next = this.roster.next(this.index);
    this.index = next.index;
    const held = Math.max(0, next.notBefore - this.options.clock.now());
    const plan = this.reconnector.retry(() => {
      if (this.stateValue.name === 'waiting') this.dial();
    }, held);
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
