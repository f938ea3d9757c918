import type { Clock, TimerHandle } from '../clock.js';
import { every } from '../clock.js';
import { CloseCode } from '../close-codes.js';
import type { ErrorCode, ProtocolError, Result } from '../errors.js';
import { fail, ok, protocolError } from '../errors.js';
import type { ChannelMessage } from '../rpc/channel.js';
import { decodeChannelMessage, encodeChannelMessage } from '../rpc/channel.js';
import type { Transport } from '../link/transport.js';
import {
  BodyAssembler,
  LINK_BODY_CHUNK_BYTES,
  LINK_BODY_TAG,
  bodyChunkHeader,
  bodyOf,
  decodeBodyChunk,
} from './link-body.js';
import type { LinkAead } from './link-aead.js';
import type { LinkKeys } from './link-frame.js';
import { LinkFrameOpener, LinkFrameSealer } from './link-frame.js';
import {
  MAX_LINK_BODY_BYTES,
  LINK_PING_INTERVAL_MS,
  LINK_PONG_TIMEOUT_MS,
  MAX_LINK_FRAME_PLAINTEXT,
  MAX_PENDING_LINK_REQUESTS,
} from './machine-limits.js';

export interface LinkPeerOptions {
  transport: Transport;
  keys: LinkKeys;
  /** Seals and opens the frames: OpenSSL's where the program has it (see link-aead.ts). */
  aead: LinkAead;
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
 * liveness. Frames are sealed with the handshake's keys (link-frame.ts); a frame
 * that does not open ends the link. Requests either side sent and not yet answered fail with
 * `disconnected` when the link ends, so nothing waits on a dead link.
 *
 * A reply whose result has a `body` of bytes (a file's contents) sends them as binary body frames
 * just before the reply (see link-body.ts); the receiver puts the joined bytes back under `body`.
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
  private readonly sealer: LinkFrameSealer;
  private readonly opener: LinkFrameOpener;
  private readonly pending = new Map<number, (result: Result<unknown>) => void>();
  private readonly closeListeners = new Set<(error: ProtocolError) => void>();
  private nextId = 1;
  /** The body of the reply that comes next, while its chunks arrive. */
  private incoming: { id: number; body: BodyAssembler } | undefined;
  private closedWith: ProtocolError | undefined;
  private lastHeard: number;
  private pongTimer: TimerHandle | undefined;
  private readonly stopPings: () => void;

  constructor(private readonly options: LinkPeerOptions) {
    this.sealer = new LinkFrameSealer(options.aead, options.keys.send, MAX_LINK_FRAME_PLAINTEXT);
    this.opener = new LinkFrameOpener(options.aead, options.keys.receive, MAX_LINK_FRAME_PLAINTEXT);
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

  /** A sealed goodbye (the other side can trust its code; a long message is cut as it is encoded), then the close. */
  bye(code: ErrorCode, message: string): void {
    if (this.closedWith) return;
    this.send({ t: 'bye', code, message });
    this.close(CloseCode.Normal, code, protocolError(code, message));
  }

  close(code: number = CloseCode.Normal, reason = 'closed', error = protocolError('disconnected', reason)): void {
    if (this.closedWith) return;
    this.options.transport.close(code, reason.slice(0, 120));
    this.finish(error);
  }

  private send(message: ChannelMessage): Result<void> {
    return this.sendPlain(encodeChannelMessage(message));
  }

  private sendPlain(plain: Uint8Array | readonly Uint8Array[]): Result<void> {
    if (this.closedWith) return fail('disconnected', 'the link is closed');
    const frame = this.sealer.seal(plain);
    if (!frame.ok) return frame.error.code === 'frame-too-large' ? fail('too-large', frame.error.message) : frame;
    this.options.transport.send(frame.value);
    return ok(undefined);
  }

  /** A reply with a body: the body's chunks, then the reply with the body's length in its place. */
  private sendWithBody(id: number, result: object, body: Uint8Array): Result<void> {
    if (body.length > MAX_LINK_BODY_BYTES) {
      return fail('too-large', `a body of ${body.length} bytes is over the ${MAX_LINK_BODY_BYTES}-byte limit`);
    }
    const header = bodyChunkHeader(id);
    for (let at = 0; at < body.length; at += LINK_BODY_CHUNK_BYTES) {
      const sent = this.sendPlain([header, body.subarray(at, at + LINK_BODY_CHUNK_BYTES)]);
      if (!sent.ok) return sent;
    }
    return this.send({ t: 'res', id, result: { ...result, body: body.length } });
  }

  /** A body chunk: for the request waiting on it, in one run right before its reply. */
  private receiveBody(plain: Uint8Array): void {
    const chunk = decodeBodyChunk(plain);
    if (!chunk || !this.pending.has(chunk.id) || (this.incoming && this.incoming.id !== chunk.id)) {
      return this.violation('a body chunk for no waiting request');
    }
    this.incoming ??= { id: chunk.id, body: new BodyAssembler(MAX_LINK_BODY_BYTES) };
    if (!this.incoming.body.add(chunk.data)) return this.violation(`a body over ${MAX_LINK_BODY_BYTES} bytes`);
  }

  /** The reply's result with its body joined back in; undefined when the two do not agree. */
  private withBody(id: number, result: unknown): { value: unknown } | undefined {
    const incoming = this.incoming?.id === id ? this.incoming : undefined;
    this.incoming = undefined;
    const said = typeof result === 'object' && result !== null ? (result as { body?: unknown }).body : undefined;
    if (typeof said !== 'number') return incoming ? undefined : { value: result };
    if (said !== (incoming?.body.bytes ?? 0)) return undefined;
    return { value: { ...(result as object), body: incoming ? incoming.body.join() : new Uint8Array(0) } };
  }

  private violation(message: string): void {
    this.close(CloseCode.ProtocolError, 'frame-malformed', protocolError('frame-malformed', message));
  }

  private receive(data: Uint8Array): void {
    if (this.closedWith) return;
    const plain = this.opener.open(data);
    if (!plain.ok) {
      this.close(CloseCode.ProtocolError, plain.error.code, plain.error);
      return;
    }
    this.lastHeard = this.options.clock.now();
    if (plain.value[0] === LINK_BODY_TAG) return this.receiveBody(plain.value);
    const message = decodeChannelMessage(plain.value);
    if (!message) {
      this.undecodable++;
      return;
    }
    // Body chunks come right before their reply, nothing between.
    if (this.incoming && (message.t !== 'res' || message.id !== this.incoming.id)) {
      return this.violation('a body without its reply');
    }
    switch (message.t) {
      case 'req':
        void this.answer(message.id, message.method, message.params);
        return;
      case 'res': {
        const resolve = this.pending.get(message.id);
        if (!resolve) return;
        if ('error' in message) {
          this.incoming = undefined;
          this.pending.delete(message.id);
          resolve({ ok: false, error: message.error });
          return;
        }
        const joined = this.withBody(message.id, message.result);
        if (!joined) return this.violation('a reply whose body length does not match its chunks');
        this.pending.delete(message.id);
        resolve(ok(joined.value));
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
    const body = result.ok ? bodyOf(result.value) : undefined;
    const sent =
      result.ok && body
        ? this.sendWithBody(id, result.value as object, body)
        : this.send(result.ok ? { t: 'res', id, result: result.value } : { t: 'res', id, error: result.error });
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
