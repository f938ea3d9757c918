import type { Clock } from '../clock.js';
import type { ProtocolError, Result } from '../errors.js';
import { ok } from '../errors.js';
import type { ResponderOptions } from '../handshake.js';
import { HandshakeResponder } from '../handshake.js';
import type { ChannelMessage } from '../rpc/channel.js';
import { decodeChannelMessage, encodeChannelMessage } from '../rpc/channel.js';
import { FrameOpener, FrameSealer } from '../sealed-frame.js';
import type { Secretbox } from '../secretbox.js';

export interface HostChannelOptions extends Omit<ResponderOptions, 'lookupDevice' | 'clock'> {
  clock: Pick<Clock, 'now'>;
  /**
   * The device's static public key, or undefined when unknown or revoked. Unknown and revoked
   * look alike on the wire on purpose: nobody can probe for device ids.
   */
  lookupDevice: (deviceId: string) => Uint8Array | undefined;
  /** The secretbox chosen at start for the channel's frames; tweetnacl's unless given. */
  secretbox?: Secretbox;
}

/** What a frame held once opened: a channel message, or bytes that opened but decoded to none. */
export type Opened = { kind: 'message'; message: ChannelMessage } | { kind: 'undecodable' };

/**
 * The host's half of a device connection, the mirror of `DeviceChannel`: it answers the hello
 * with a welcome, then seals what the host sends and opens what the device sends. It knows no
 * transport; the host's device gateway and the test fake host both drive it.
 *
 * A frame that does not open (tampered, replayed, reordered, wrong key) spends the channel: the
 * caller must close the connection. An opened frame that holds no valid message is skipped.
 */
export class HostChannel {
  private constructor(
    readonly deviceId: string,
    private readonly sealer: FrameSealer,
    private readonly opener: FrameOpener,
  ) {}

  /** Accepts a hello: the channel and the welcome to send back, or why it was refused. */
  static accept(hello: Uint8Array, options: HostChannelOptions): Result<{ channel: HostChannel; welcome: Uint8Array }> {
    const accepted = new HandshakeResponder(options).acceptHello(hello);
    if (!accepted.ok) return accepted;
    const { deviceId, welcome, keys } = accepted.value;
    return ok({
      channel: new HostChannel(
        deviceId,
        new FrameSealer(keys.send, undefined, options.secretbox),
        new FrameOpener(keys.receive, undefined, options.secretbox),
      ),
      welcome,
    });
  }

  /** Seals one message; fails with `frame-too-large` when it is bigger than a frame may be. */
  seal(message: ChannelMessage): Result<Uint8Array> {
    return this.sealer.seal(encodeChannelMessage(message));
  }

  /** Seals a binary message (terminal output, a batch) as it is, or as the parts it is made of. */
  sealBinary(plain: Uint8Array | readonly Uint8Array[]): Result<Uint8Array> {
    return this.sealer.seal(plain);
  }

  open(frame: Uint8Array): Result<Opened, ProtocolError> {
    const plain = this.opener.open(frame);
    if (!plain.ok) return plain;
    const message = decodeChannelMessage(plain.value);
    return ok(message ? { kind: 'message', message } : { kind: 'undecodable' });
  }
}
