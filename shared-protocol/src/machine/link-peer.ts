import type { Clock, TimerHandle } from '../clock.js';
import { every } from '../clock.js';
import { CloseCode } from '../close-codes.js';
import type { ErrorCode, ProtocolError, Result } from '../errors.js';
import { fail, ok, protocolError } from '../errors.js';
import type { SessionKeys } from '../handshake.js';
import type { ChannelMessage } from '../rpc/channel.js';
import { decodeChannelMessage, encodeChannelMessage } from '../rpc/channel.js';
import { FrameOpener, FrameSealer } from '../sealed-frame.js';
import type { Transport } from '../client/transport.js';
import {
  LINK_PING_INTERVAL_MS,
  LINK_PONG_TIMEOUT_MS,
  MAX_LINK_FRAME_PLAINTEXT,
  MAX_PENDING_LINK_REQUESTS,
} from './machine-limits.js';

export interface LinkPeerOptions {
  transport: Transport;
  keys: SessionKeys;
  clock: Clock;
  /** See LINK_PING_INTERVAL_MS and LINK_PONG_TIMEOUT_MS. */
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
  /** See MAX_PENDING_LINK_REQUESTS. */
  maxPending?: number;
}

export type RequestHandler = (method: string, params: unknown) => Promise<Result<unknown>>;

/**
 * One end of a sealed machine link, the same on both sides: requests with replies, events, and
 * liveness. Frames are sealed with the handshake's keys (`FrameSealer`/`FrameOpener`); a frame
 * that does not open ends the link. Requests either side sent and not yet answered fail with
 * `disconnected` when the link ends, so nothing waits on a dead link.
 *
 * Liveness: every `pingIntervalMs` a ping goes out; if nothing at all arrives within
 * `pongTimeoutMs` after it, the link is dead (half-open TCP, a machine that lost power) and ends
 * with `timeout`. Any message counts as a sign of life.
 */
export class LinkPeer {
  onRequest: RequestHandler | null = null;
  onEvent: ((event: unknown) => void) | null = null;
  /** Frames that opened but held no valid message: counted and skipped. */
  undecodable = 0;
  private readonly sealer: FrameSealer;
  private readonly opener: FrameOpener;
  private readonly pending = new Map<number, (result: Result<unknown>) => void>();
  private readonly closeListeners = new Set<(error: ProtocolError) => void>();
  private nextId = 1;
  private closedWith: ProtocolError | undefined;
  private lastHeard: number;
  private pongTimer: TimerHandle | undefined;
  private readonly stopPings: () => void;

  constructor(private readonly options: LinkPeerOptions) {
    this.sealer = new FrameSealer(options.keys.send, MAX_LINK_FRAME_PLAINTEXT);
    this.opener = new FrameOpener(options.keys.receive, MAX_LINK_FRAME_PLAINTEXT);
    this.lastHeard = options.clock.now();
    options.transport.onMessage = (data) => this.receive(data);
    // A close code is not sealed (anyone on the path can forge one): whatever it says, the link
    // just dropped. Only a sealed `bye` carries a reason the other side acts on.
    options.transport.onClose = ({ code, reason }) =>
      this.finish(protocolError('disconnected', `${reason || 'the link closed'} (${code})`));
    this.stopPings = every(options.clock, options.pingIntervalMs ?? LINK_PING_INTERVAL_MS, () => this.ping());
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Why the link ended, once it has. */
  get closeError(): ProtocolError | undefined {
    return this.closedWith;
  }

  /** Called once when the link ends (at once when it already has). */
  onClose(listener: (error: ProtocolError) => void): () => void {
    if (this.closedWith) {
      listener(this.closedWith);
      return () => undefined;
    }
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Sends a request; resolves with the reply, or `disconnected` when the link ends first. */
  request(method: string, params: unknown): Promise<Result<unknown>> {
    if (this.closedWith) return Promise.resolve(fail('disconnected', 'the link is closed'));
    if (this.pending.size >= (this.options.maxPending ?? MAX_PENDING_LINK_REQUESTS)) {
      return Promise.resolve(fail('busy', `${this.pending.size} requests wait for replies on this link already`));
    }
    const id = this.nextId++;
    const sent = this.send({ t: 'req', id, method, params });
    if (!sent.ok) return Promise.resolve(sent);
    return new Promise((resolve) => this.pending.set(id, resolve));
  }

  notify(event: unknown): Result<void> {
    return this.send({ t: 'evt', event });
  }

  /** A sealed goodbye (the other side can trust its code), then the close. */
  bye(code: ErrorCode, message: string): void {
    if (this.closedWith) return;
    this.send({ t: 'bye', code, message: message.slice(0, 2000) });
    this.close(CloseCode.Normal, code, protocolError(code, message));
  }

  close(code: number = CloseCode.Normal, reason = 'closed', error = protocolError('disconnected', reason)): void {
    if (this.closedWith) return;
    this.options.transport.close(code, reason.slice(0, 120));
    this.finish(error);
  }

  private send(message: ChannelMessage): Result<void> {
    if (this.closedWith) return fail('disconnected', 'the link is closed');
    const frame = this.sealer.seal(encodeChannelMessage(message));
    if (!frame.ok) return frame.error.code === 'frame-too-large' ? fail('too-large', frame.error.message) : frame;
    this.options.transport.send(frame.value);
    return ok(undefined);
  }

  private receive(data: Uint8Array): void {
    if (this.closedWith) return;
    const plain = this.opener.open(data);
    if (!plain.ok) {
      this.close(CloseCode.ProtocolError, plain.error.code, plain.error);
      return;
    }
    this.lastHeard = this.options.clock.now();
    const message = decodeChannelMessage(plain.value);
    if (!message) {
      this.undecodable++;
      return;
    }
    switch (message.t) {
      case 'req':
        void this.answer(message.id, message.method, message.params);
        return;
      case 'res': {
        const resolve = this.pending.get(message.id);
        if (!resolve) return;
        this.pending.delete(message.id);
        resolve('error' in message ? { ok: false, error: message.error } : ok(message.result));
        return;
      }
      case 'evt':
        this.onEvent?.(message.event);
        return;
      case 'ping':
        this.send({ t: 'pong', n: message.n });
        return;
      case 'pong':
        return;
      case 'bye':
        this.close(CloseCode.Normal, message.code, protocolError(message.code, message.message));
        return;
    }
  }

  private async answer(id: number, method: string, params: unknown): Promise<void> {
    let result: Result<unknown>;
    if (!this.onRequest) result = fail('unknown-method', `this end serves no requests (${method.slice(0, 100)})`);
    else {
      try {
        result = await this.onRequest(method, params);
      } catch (error) {
        result = fail('internal', error instanceof Error ? error.message : String(error));
      }
    }
    if (this.closedWith) return;
    const sent = this.send(result.ok ? { t: 'res', id, result: result.value } : { t: 'res', id, error: result.error });
    // A reply over the frame cap is answered as such, never cut or dropped silently.
    if (!sent.ok && sent.error.code === 'too-large') {
      this.send({
        t: 'res',
        id,
        error: protocolError(
          'too-large',
          `the reply to ${method.slice(0, 100)} is too large for the link: ${sent.error.message}`,
        ),
      });
    }
  }

  private ping(): void {
    if (this.closedWith) return;
    const sentAt = this.options.clock.now();
    this.send({ t: 'ping', n: this.sealer.sent });
    if (this.pongTimer !== undefined) return;
    this.pongTimer = this.options.clock.setTimeout(() => {
      this.pongTimer = undefined;
      if (this.lastHeard < sentAt) {
        this.close(
          CloseCode.PingTimeout,
          'no answer to ping',
          protocolError('timeout', 'the other end stopped answering'),
        );
      }
    }, this.options.pongTimeoutMs ?? LINK_PONG_TIMEOUT_MS);
  }

  private finish(error: ProtocolError): void {
    if (this.closedWith) return;
    this.closedWith = error;
    this.stopPings();
    if (this.pongTimer !== undefined) this.options.clock.clearTimeout(this.pongTimer);
    for (const resolve of this.pending.values()) resolve(fail('disconnected', `the link closed: ${error.message}`));
    this.pending.clear();
    for (const listener of this.closeListeners) listener(error);
    this.closeListeners.clear();
  }
}
