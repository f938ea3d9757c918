import type { Clock, TimerHandle } from '../clock.js';
import { CloseCode, closeCodeToError } from '../close-codes.js';
import type { ProtocolError, Result } from '../errors.js';
import { fail, ok, protocolError } from '../errors.js';
import type { InitiatorOptions } from '../handshake.js';
import { HandshakeInitiator } from '../handshake.js';
import { HANDSHAKE_TIMEOUT_MS } from '../limits.js';
import type { ChannelMessage } from '../rpc/channel.js';
import { decodeChannelMessage, encodeChannelMessage } from '../rpc/channel.js';
import { FrameOpener, FrameSealer } from '../sealed-frame.js';
import type { Transport } from './transport.js';

/**
 * One device connection: the handshake over a fresh transport, then sealed channel messages.
 * Any refused frame ends the channel (the opener is spent); the owner reconnects.
 */
export class DeviceChannel {
  onMessage: ((message: ChannelMessage) => void) | null = null;
  onClose: ((error: ProtocolError) => void) | null = null;
  /** Frames that opened but held no valid channel message: counted and skipped. */
  undecodable = 0;
  private closed = false;

  private constructor(
    private readonly transport: Transport,
    private readonly sealer: FrameSealer,
    private readonly opener: FrameOpener,
  ) {
    transport.onMessage = (data) => this.receive(data);
    transport.onClose = ({ code, reason }) =>
      this.finish(protocolError(closeCodeToError(code), reason || 'connection closed'));
  }

  /** Runs the handshake; resolves with an open channel or the reason it failed. */
  static open(
    transport: Transport,
    options: InitiatorOptions & { clock: Clock; timeoutMs?: number },
  ): Promise<Result<DeviceChannel>> {
    return new Promise((resolve) => {
      const initiator = new HandshakeInitiator(options);
      let settled = false;
      const settle = (result: Result<DeviceChannel>) => {
        if (settled) return;
        settled = true;
        options.clock.clearTimeout(timer);
        if (!result.ok) transport.close(CloseCode.Normal, result.error.code);
        resolve(result);
      };
      const timer: TimerHandle = options.clock.setTimeout(
        () => settle(fail('timeout', 'the host did not answer the handshake')),
        options.timeoutMs ?? HANDSHAKE_TIMEOUT_MS,
      );
      transport.onClose = ({ code, reason }) =>
        settle({
          ok: false,
          error: protocolError(closeCodeToError(code), reason || 'connection closed during handshake'),
        });
      transport.onMessage = (data) => {
        const keys = initiator.acceptWelcome(data);
        if (!keys.ok) return settle(keys);
        settle(ok(new DeviceChannel(transport, new FrameSealer(keys.value.send), new FrameOpener(keys.value.receive))));
      };
      transport.send(initiator.hello());
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
    if (!plain.ok) {
      this.transport.close(CloseCode.ProtocolError, plain.error.code);
      this.finish(plain.error);
      return;
    }
    const message = decodeChannelMessage(plain.value);
    if (!message) {
      this.undecodable++;
      return;
    }
    this.onMessage?.(message);
  }

  private finish(error: ProtocolError): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose?.(error);
  }
}
