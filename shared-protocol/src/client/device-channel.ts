import type { Clock } from '../clock.js';
import { CloseCode } from '../close-codes.js';
import { transportCloseToError } from '../relay/relay-close-codes.js';
import type { ProtocolError, Result } from '../errors.js';
import { fail, ok, protocolError } from '../errors.js';
import type { InitiatorOptions } from '../handshake.js';
import { HandshakeInitiator } from '../handshake.js';
import { HANDSHAKE_TIMEOUT_MS } from '../limits.js';
import type { ChannelMessage } from '../rpc/channel.js';
import { decodeChannelMessage, encodeChannelMessage } from '../rpc/channel.js';
import { TERMINAL_OUTPUT_TAG, decodeTerminalOutput } from '../rpc/terminal-output-frame.js';
import { BATCH_TAG, decodeBatch } from '../rpc/batch-frame.js';
import { handshakeWithDeadline } from '../link/handshake-deadline.js';
import { FrameOpener, FrameSealer } from '../sealed-frame.js';
import type { Transport } from '../link/transport.js';

/** Messages held while the channel has no handler yet: the first moments after the welcome. */
const MAX_EARLY_MESSAGES = 64;

/**
 * One device connection: the handshake over a fresh transport, then sealed channel messages.
 * Any refused frame ends the channel (the opener is spent); the owner reconnects.
 */
export class DeviceChannel {
  /** Frames that opened but held no valid channel message: counted and skipped. */
  undecodable = 0;
  private closed = false;
  private messageHandler: ((message: ChannelMessage) => void) | null = null;
  private closeHandler: ((error: ProtocolError) => void) | null = null;
  /**
   * What arrived before the owner attached its handlers: the host may send right after its
   * welcome (a goodbye, say), in the same read, before the promise that hands over the channel
   * has run. Held, in order, and given to the handlers when they are attached.
   */
  private early: ChannelMessage[] = [];
  private closedWith: ProtocolError | undefined;

  get onMessage(): ((message: ChannelMessage) => void) | null {
    return this.messageHandler;
  }

  set onMessage(handler: ((message: ChannelMessage) => void) | null) {
    this.messageHandler = handler;
    this.flushEarly();
  }

  get onClose(): ((error: ProtocolError) => void) | null {
    return this.closeHandler;
  }

  set onClose(handler: ((error: ProtocolError) => void) | null) {
    this.closeHandler = handler;
    this.flushEarly();
  }

  /** Hands over what was held: messages first, then the close that followed them. */
  private flushEarly(): void {
    if (this.messageHandler && this.early.length > 0) {
      const early = this.early;
      this.early = [];
      for (const message of early) this.messageHandler(message);
    }
    if (this.closeHandler && this.closedWith && this.early.length === 0) {
      const error = this.closedWith;
      this.closedWith = undefined;
      this.closeHandler(error);
    }
  }

  private constructor(
    private readonly transport: Transport,
    private readonly sealer: FrameSealer,
    private readonly opener: FrameOpener,
  ) {
    transport.onMessage = (data) => this.receive(data);
    transport.onClose = ({ code, reason }) =>
      this.finish(protocolError(transportCloseToError(code, reason), reason || 'connection closed'));
  }

  /** Runs the handshake; resolves with an open channel or the reason it failed. */
  static open(
    transport: Transport,
    options: InitiatorOptions & { clock: Clock; timeoutMs?: number },
  ): Promise<Result<DeviceChannel>> {
    const initiator = new HandshakeInitiator(options);
    return handshakeWithDeadline(transport, {
      clock: options.clock,
      timeoutMs: options.timeoutMs ?? HANDSHAKE_TIMEOUT_MS,
      timeoutMessage: 'the host did not answer the handshake',
      closed: ({ code, reason }) =>
        protocolError(transportCloseToError(code, reason), reason || 'connection closed during handshake'),
      hello: initiator.hello(),
      receive: (data) => {
        const keys = initiator.acceptWelcome(data);
        if (!keys.ok) return keys;
        return ok(new DeviceChannel(transport, new FrameSealer(keys.value.send), new FrameOpener(keys.value.receive)));
      },
    });
  }

  send(message: ChannelMessage): Result<void> {
    if (this.closed) return fail('disconnected', 'the connection is closed');
    const frame = this.sealer.seal(encodeChannelMessage(message));
    if (!frame.ok) return frame;
    this.transport.send(frame.value);
    return ok(undefined);
  }

  close(code: number = CloseCode.Normal, reason = 'closed by client'): void {
    this.transport.close(code, reason);
    this.finish(protocolError('disconnected', reason));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private receive(data: Uint8Array): void {
    if (this.closed) return;
    const plain = this.opener.open(data);
    if (!plain.ok) return this.refuse(plain.error);
    if (plain.value[0] !== BATCH_TAG) return this.deliver(plain.value);
    // A batch (batch-frame.ts) is refused whole, like a frame that does not open: the host sealed
    // something no host writes, and acting on part of it would be a guess.
    const batch = decodeBatch(plain.value);
    if (!batch.ok) return this.refuse(batch.error);
    for (const message of batch.value) {
      if (this.closed) return;
      this.deliver(message);
    }
  }

  private refuse(error: ProtocolError): void {
    this.transport.close(CloseCode.ProtocolError, error.code);
    this.finish(error);
  }

  private deliver(plain: Uint8Array): void {
    const message = plain[0] === TERMINAL_OUTPUT_TAG ? binaryEvent(plain) : decodeChannelMessage(plain);
    if (!message) {
      this.undecodable++;
      return;
    }
    if (this.messageHandler) this.messageHandler(message);
    else if (this.early.length < MAX_EARLY_MESSAGES) this.early.push(message);
  }

  private finish(error: ProtocolError): void {
    if (this.closed) return;
    this.closed = true;
    if (this.closeHandler) this.closeHandler(error);
    else this.closedWith = error;
  }
}

/** A binary terminal-output message as the event it carries (decoded with the event schemas next,
 * like every event). */
function binaryEvent(plain: Uint8Array): ChannelMessage | undefined {
  const frame = decodeTerminalOutput(plain);
  return frame && { t: 'evt', event: { type: 'terminal.output', ...frame } };
}
