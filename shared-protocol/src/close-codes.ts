import type { ErrorCode } from './errors.js';

/**
 * WebSocket close codes the host uses (4000–4999 is the application range). A client maps them
 * back to error codes. Close codes are not sealed: anyone on the path can close a connection with
 * any code, so a client never gives up on a host because of one (see `refusesForGood`).
 */
export const CloseCode = {
  Normal: 1000,
  GoingAway: 1001,
  /** The connection dropped without a close frame (a transport reports this; never sent). */
  Abnormal: 1006,
  /** Nothing heard in time (no pong, or no hello): the connection is dead; try again. */
  PingTimeout: 4000,
  /** Unknown or revoked device, or a hello that does not open. The two look alike on purpose. */
  HandshakeFailed: 4001,
  HandshakeStale: 4002,
  Revoked: 4003,
  /** The hello was seen before: a copy raced ahead of it. The device just tries again. */
  HandshakeReplayed: 4006,
  /** A frame was refused (tampered, replayed, reordered, malformed): the channel is spent. */
  ProtocolError: 4004,
  VersionUnsupported: 4005,
  SlowConsumer: 4008,
  Busy: 4009,
} as const;

const CODE_TO_ERROR: Record<number, ErrorCode> = {
  [CloseCode.PingTimeout]: 'timeout',
  [CloseCode.HandshakeFailed]: 'handshake-failed',
  [CloseCode.HandshakeStale]: 'handshake-stale',
  [CloseCode.HandshakeReplayed]: 'handshake-replayed',
  [CloseCode.Revoked]: 'revoked',
  [CloseCode.ProtocolError]: 'frame-malformed',
  [CloseCode.VersionUnsupported]: 'version-unsupported',
  [CloseCode.SlowConsumer]: 'slow-consumer',
  [CloseCode.Busy]: 'busy',
};

export function closeCodeToError(code: number): ErrorCode {
  return CODE_TO_ERROR[code] ?? 'disconnected';
}

export function errorToCloseCode(code: ErrorCode): number {
  switch (code) {
    case 'handshake-failed':
    case 'handshake-malformed':
      return CloseCode.HandshakeFailed;
    case 'handshake-replayed':
      return CloseCode.HandshakeReplayed;
    case 'handshake-stale':
      return CloseCode.HandshakeStale;
    case 'revoked':
      return CloseCode.Revoked;
    case 'version-unsupported':
      return CloseCode.VersionUnsupported;
    case 'slow-consumer':
      return CloseCode.SlowConsumer;
    case 'busy':
      return CloseCode.Busy;
    default:
      return CloseCode.ProtocolError;
  }
}

/**
 * Whether a sealed goodbye with this code means the device must pair again: reconnecting would
 * only repeat it. Only a sealed `bye` can say so; an unsealed close code, which an attacker can
 * forge, is always retried (with backoff), however final it sounds.
 */
export function refusesForGood(code: ErrorCode): boolean {
  return code === 'revoked';
}
