import type { ErrorCode } from '../errors.js';
import { isErrorCode } from '../errors.js';
import { CloseCode, closeCodeToError } from '../close-codes.js';

/**
 * WebSocket close codes a relay sends, besides the host's own (4000–4009, which it reuses for the
 * same meanings: 4000 no pong, 4004 protocol error, 4005 version, 4008 too slow, 4009 busy). The
 * close reason is always a stable code string (`ticket-expired`, `host-queue-full`, …), never prose,
 * so a client can branch on it; a code the host sent through the relay is passed on unchanged.
 */
export const RelayCloseCode = {
  /** The ticket is malformed, forged, for another host, or the key does not match: pair again. */
  TicketRefused: 4100,
  /** The ticket has expired: only the host can issue a new one (pair again, or reach it directly). */
  TicketExpired: 4101,
  /** No link from that host on any relay node: try again later. */
  HostOffline: 4102,
  /** The host's link went away while connected: reconnect (the host may be relinking). */
  HostGone: 4103,
  /** To a host link: a newer link for the same host took over. Do not reconnect on your own: two
   * processes holding one key would otherwise take turns forever. */
  Replaced: 4104,
  /** The host's answer to the challenge did not hold. */
  AuthFailed: 4105,
  /** Nothing valid arrived before the authentication deadline. */
  AuthTimeout: 4106,
  /** The relay node is shutting down: reconnect (to any node). */
  GoingAway: 1001,
  /** A message over the size allowed at that point (RFC 6455). */
  TooLarge: 1009,
} as const;

const RELAY_CODE_TO_ERROR: Record<number, ErrorCode> = {
  [RelayCloseCode.TicketRefused]: 'ticket-forged',
  [RelayCloseCode.TicketExpired]: 'ticket-expired',
  [RelayCloseCode.HostOffline]: 'host-offline',
  [RelayCloseCode.HostGone]: 'disconnected',
  [RelayCloseCode.Replaced]: 'conflict',
  [RelayCloseCode.AuthFailed]: 'handshake-failed',
  [RelayCloseCode.AuthTimeout]: 'timeout',
  [RelayCloseCode.TooLarge]: 'too-large',
};

/** The error a relay close means: the reason when it is a stable code, else the code's meaning. */
export function relayCloseToError(code: number, reason: string): ErrorCode {
  if (isErrorCode(reason)) return reason;
  return RELAY_CODE_TO_ERROR[code] ?? closeCodeToError(code);
}

/** Closes after which reconnecting as before cannot help. */
export function relayRefusesForGood(code: number): boolean {
  return (
    code === RelayCloseCode.TicketRefused ||
    code === RelayCloseCode.TicketExpired ||
    code === RelayCloseCode.Replaced ||
    code === RelayCloseCode.AuthFailed ||
    code === CloseCode.VersionUnsupported
  );
}

/**
 * The error a device's transport closing means, whichever path it took: a relay's own codes
 * (4100–4106) by their stable reason, every other code as the host means it. A device never gives
 * up on a host for an unsealed close (see `refusesForGood`); the code only says what to show.
 */
export function transportCloseToError(code: number, reason: string): ErrorCode {
  return code >= RelayCloseCode.TicketRefused && code <= RelayCloseCode.AuthTimeout
    ? relayCloseToError(code, reason)
    : closeCodeToError(code);
}
