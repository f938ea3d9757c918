import type { ProtocolError, RelayFrame } from '@tether/shared-protocol';
import {
  CloseCode,
  RelayCloseCode,
  decodeRelayFrame,
  protocolError,
  relayCloseToError,
  relayHostLinkUrl,
  relayOrigin,
  relayRefusesForGood,
} from '@tether/shared-protocol';
import { challengeStep } from './link-challenge.js';
import { LinkSession } from './link-session.js';
import { RelayDialler } from './relay-dialler.js';
import type { RelayEntry } from './relay-roster.js';
import { closeMessage } from './relay-words.js';

import type { RelayLinkOptions, RelayLinkState } from './link-types.js';

export type { LinkGateway, RelayLinkOptions, RelayLinkState } from './link-types.js';

/**
 * The host's link to a relay (`tether start --relay URL`): the second transport adapter in front
 * of the device gateway, beside the LAN listener. It dials `WS /relay/host`, proves the host's id
 * by signing the relay's challenge (after checking the relay names the origin it meant to reach,
 * at about the present time), then carries the device connections the relay opens on it (a
 * `LinkSession`) and answers the pair requests and one-shot calls the relay forwards.
 *
 * Which relay it dials, and when, is the dialler's (`RelayDialler`); the socket's phases and pings
 * are its session's (`LinkSession`), the connections on it the multiplexer's (`LinkMux`).
 *
 * Only the host stops the link. A drop is dialled again with jittered exponential backoff; a link
 * that ends within LINK_STABLE_MS of `ready`, however it ended, counts as a failure. Every drop
 * and failed dial moves to the next relay in the list, so a host whose relay dies is on another
 * well within 2 s. A relay's refusal is its word about itself: that relay alone is passed over, for
 * a while that grows with each refusal (`RelayRoster`).
 */
export class RelayLink {
  private stateValue: RelayLinkState = { name: 'idle' };
  private session: LinkSession | undefined;
  private readonly dialler: RelayDialler;
  private sinceValue: number;
  /** The relay's clock minus this one, from the last challenge (ms). */
  skewMs: number | undefined;
  private readonly pingNonce: Uint8Array;

  constructor(private readonly options: RelayLinkOptions) {
    this.sinceValue = options.clock.now();
    this.pingNonce = options.random(8);
    this.dialler = new RelayDialler(options, {
      state: () => this.stateValue,
      busy: () => this.session !== undefined,
      dial: () => this.dial(),
      setState: (state) => this.setState(state),
    });
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
    return this.dialler.url;
  }

  /** Each relay's standing, in the order given. */
  get relays(): readonly RelayEntry[] {
    return this.dialler.roster.entries;
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
    this.dialler.reconnector.stop();
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
      const error = protocolError('invalid-params', `${this.url} is not a relay URL`);
      return this.dialler.skip(error);
    }
    this.setState({ name: 'connecting', attempt: this.dialler.reconnector.dialling() });
    this.dialler.mark({ name: 'connecting' });
    const session = new LinkSession(
      this.options.dial(url),
      this.options.gateway,
      this.options.clock,
      relayOrigin(this.url) ?? this.url,
    );
    this.session = session;
    session.expectReady(() => {
      this.options.gateway.stats.add('relay:ready-timeout');
      this.drop(session, protocolError('timeout', 'the relay did not accept the link in time'));
    });
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
    if (session.phase.name !== 'linked') return this.authenticate(session, frame, bytes);
    switch (frame.type) {
      case 'open':
      case 'data':
      case 'close':
      case 'pair-request':
      case 'call-request':
        return session.mux.carry(frame);
      case 'ping':
        return session.control({ type: 'pong', nonce: frame.nonce });
      case 'pong':
        return;
      case 'drain':
        return this.drained(session);
      case 'about':
        session.move({ type: 'about', servesApp: frame.servesApp });
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
    if (frame.type === 'challenge' && session.phase.name === 'opening') {
      this.skewMs = frame.time - this.options.clock.now();
      const step = challengeStep(bytes, frame, this.url, this.options.identity.sign, this.options.clock);
      if (step.kind === 'refuse') return this.refused(session, step.error);
      if (step.kind === 'drop') return this.drop(session, step.error, CloseCode.ProtocolError, step.error.code);
      session.move({ type: 'answered' });
      return session.socket.send(step.bytes, () => undefined);
    }
    if (frame.type === 'ready' && session.phase.name === 'challenged') {
      if (frame.hostId !== this.options.identity.hostId) {
        return this.drop(
          session,
          protocolError('handshake-failed', 'the relay accepted the link for another host id'),
          CloseCode.ProtocolError,
          'auth-failed',
        );
      }
      return this.linked(session, frame.maxConnections);
    }
    this.options.gateway.stats.add('relay:unexpected-frame');
    this.drop(
      session,
      protocolError('handshake-malformed', `the relay sent ${frame.type} before the link was ready`),
      CloseCode.ProtocolError,
      'unexpected-frame',
    );
  }

  private linked(session: LinkSession, maxConnections: number): void {
    session.move({ type: 'ready', maxConnections });
    this.dialler.reconnector.opened();
    this.dialler.mark({ name: 'linked' });
    this.setState({ name: 'linked' });
    session.keepAlive(this.pingNonce, () => {
      this.options.gateway.stats.add('relay:dead');
      this.closed(session, CloseCode.PingTimeout, 'ping-timeout');
    });
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
    const stable = this.dialler.reconnector.stable;
    session.socket.close(CloseCode.GoingAway, 'relay-draining');
    this.endSession(session);
    this.dialler.mark({ name: 'standby' });
    if (!stable) {
      return this.dialler.retry(
        protocolError('disconnected', `the relay at ${this.url} asked this host to link again right after it linked`),
        true,
      );
    }
    this.dialler.relinkNow();
  }

  /** Ends the session from this side and dials again after a backoff. */
  private drop(
    session: LinkSession,
    error: ProtocolError,
    code: number = CloseCode.Normal,
    reason = 'relinking',
  ): void {
    session.socket.close(code, reason);
    this.failed(session, error);
  }

  /** The relay refused this host: that relay is held for a while, the link goes on with the others. */
  private refused(session: LinkSession, error: ProtocolError): void {
    session.socket.close(CloseCode.Normal, error.code);
    this.endSession(session);
    this.dialler.passOver(error);
  }

  /** The socket closed under the session: a refusal of this relay, or a drop. */
  private closed(session: LinkSession, code: number, reason: string): void {
    const error = protocolError(relayCloseToError(code, reason), closeMessage(this.url, code, reason));
    if (relayRefusesForGood(code)) return this.refused(session, error);
    this.failed(session, error);
  }

  private failed(session: LinkSession, error: ProtocolError): void {
    const shortLived = session.phase.name === 'linked' && !this.dialler.reconnector.stable;
    this.endSession(session);
    this.dialler.mark({ name: 'failed', error });
    this.dialler.retry(error, shortLived);
  }

  /** Its devices are told the host went away (they reconnect, wherever it links next). */
  private endSession(
    session: LinkSession,
    info: { code: number; reason: string } = { code: RelayCloseCode.HostGone, reason: 'host-gone' },
  ): void {
    if (this.session === session) this.session = undefined;
    session.end(info);
  }

  private setState(state: RelayLinkState): void {
    this.stateValue = state;
    this.sinceValue = this.options.clock.now();
    this.options.onState?.(state);
  }
}
