import nacl from 'tweetnacl';
import type { Clock } from '../clock.js';
import {
  concatBytes,
  fromBase64Url,
  fromBase64UrlExact,
  readUint64,
  toBase64Url,
  utf8Encode,
  writeUint64,
} from '../encoding.js';
import type { Result } from '../errors.js';
import { BugError, fail, ok } from '../errors.js';
import type { SignKeyPair } from '../identity.js';
import { hostIdFromSignKey } from '../identity.js';
import { DEVICE_ID_BYTES, HOST_ID_BYTES, KEY_BYTES } from '../key-sizes.js';
import { RELAY_CLOCK_SKEW_MS } from './relay-limits.js';
import { SIGNATURE_BYTES } from './relay-frame.js';

/**
 * A relay ticket: the host's signed word that a device may reach it through a relay.
 *
 *   ticket = v(1) = 1 | hostId(16) | deviceId(16) | expiresAt(8, ms since epoch) | signature(64)
 *   signature = Ed25519(host sign key, "tether/1 relay ticket" | 0x00 | ticket[0..41])
 *
 * The relay checks it against the host's public signing key, which the device presents with it
 * (it learnt the key at pairing): the key must hash to the host id, the ticket must name that host,
 * the signature must hold and the expiry must not have passed. The relay keeps no list of devices;
 * revocation is the host's (it refuses the handshake), the ticket only keeps strangers off the relay.
 * As text (pairing replies) a ticket is base64url of these bytes.
 */
export interface RelayTicket {
  v: 1;
  hostId: string;
  deviceId: string;
  /** Milliseconds since the Unix epoch. */
  expiresAt: number;
}

export const RELAY_TICKET_VERSION = 1;
const BODY_BYTES = 1 + HOST_ID_BYTES + DEVICE_ID_BYTES + 8;
export const RELAY_TICKET_BYTES = BODY_BYTES + SIGNATURE_BYTES;
/** Domain separation: a ticket signature can never pass for a host-auth signature or the reverse. */
const LABEL = utf8Encode('tether/1 relay ticket\u0000');

function signedMessage(body: Uint8Array): Uint8Array {
  return concatBytes(LABEL, body);
}

/** Signs a ticket for `deviceId` with the host's Ed25519 key; the host id comes from that key. */
export function signRelayTicket(fields: { deviceId: string; expiresAt: number }, sign: SignKeyPair): Uint8Array {
  const deviceId = fromBase64UrlExact(fields.deviceId, DEVICE_ID_BYTES);
  if (!deviceId) throw new BugError('deviceId is not 16 bytes of base64url');
  if (!Number.isSafeInteger(fields.expiresAt) || fields.expiresAt < 0) throw new BugError('expiresAt is not a time');
  const hostId = fromBase64UrlExact(hostIdFromSignKey(sign.publicKey), HOST_ID_BYTES)!;
  const body = concatBytes(Uint8Array.of(RELAY_TICKET_VERSION), hostId, deviceId, writeUint64(fields.expiresAt));
  return concatBytes(body, nacl.sign.detached(signedMessage(body), sign.secretKey));
}

export function encodeRelayTicket(ticket: Uint8Array): string {
  return toBase64Url(ticket);
}

export interface DecodedRelayTicket extends RelayTicket {
  body: Uint8Array;
  signature: Uint8Array;
}

/** Reads a ticket's fields without checking the signature (`verifyRelayTicket` does that). */
export function decodeRelayTicket(input: Uint8Array | string): Result<DecodedRelayTicket> {
  const bytes = typeof input === 'string' ? fromBase64Url(input) : input;
  if (!bytes || bytes.length < 1) return fail('ticket-malformed', 'the relay ticket is not valid base64url');
  if (bytes[0] !== RELAY_TICKET_VERSION) {
    return fail('ticket-malformed', `relay ticket version ${bytes[0]} is not known (this side reads version 1)`);
  }
  if (bytes.length !== RELAY_TICKET_BYTES) return fail('ticket-malformed', 'the relay ticket has the wrong length');
  const expiresAt = readUint64(bytes, 1 + HOST_ID_BYTES + DEVICE_ID_BYTES);
  if (expiresAt === undefined || !Number.isSafeInteger(expiresAt))
    return fail('ticket-malformed', 'the relay ticket expiry is out of range');
  return ok({
    v: 1,
    hostId: toBase64Url(bytes.subarray(1, 1 + HOST_ID_BYTES)),
    deviceId: toBase64Url(bytes.subarray(1 + HOST_ID_BYTES, 1 + HOST_ID_BYTES + DEVICE_ID_BYTES)),
    expiresAt,
    body: bytes.subarray(0, BODY_BYTES),
    signature: bytes.subarray(BODY_BYTES),
  });
}

export interface VerifyRelayTicketOptions {
  /** The host the device asks for (the `:hostId` of `/relay/connect/:hostId`). */
  hostId: string;
  /** The host's Ed25519 public key, presented by the device. */
  hostSignPublicKey: Uint8Array;
  clock: Pick<Clock, 'now'>;
  /** Milliseconds a ticket is still taken after its expiry (clock drift); default 2 min. */
  skewMs?: number;
  /**
   * Checks an Ed25519 signature; default tweetnacl's. A relay passes its platform's (node:crypto),
   * some fifty times faster: every device that connects costs one check, and after a node restarts
   * all its devices connect again at once.
   */
  verifySignature?: (message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array) => boolean;
}

/**
 * Checks a ticket, in this order, each with its own code: `ticket-malformed`, `ticket-key-mismatch`
 * (the key does not hash to the host id), `ticket-wrong-host` (the ticket names another host),
 * `ticket-forged` (the signature fails: forged or changed), `ticket-expired`.
 */
export function verifyRelayTicket(input: Uint8Array | string, options: VerifyRelayTicketOptions): Result<RelayTicket> {
  const decoded = decodeRelayTicket(input);
  if (!decoded.ok) return decoded;
  const ticket = decoded.value;
  if (
    options.hostSignPublicKey.length !== KEY_BYTES ||
    hostIdFromSignKey(options.hostSignPublicKey) !== options.hostId
  ) {
    return fail('ticket-key-mismatch', 'the host key does not belong to this host id');
  }
  if (ticket.hostId !== options.hostId) return fail('ticket-wrong-host', 'the relay ticket is for another host');
  const message = signedMessage(ticket.body);
  const holds = options.verifySignature
    ? options.verifySignature(message, ticket.signature, options.hostSignPublicKey)
    : nacl.sign.detached.verify(message, ticket.signature, options.hostSignPublicKey);
  if (!holds) {
    return fail('ticket-forged', 'the relay ticket signature does not hold');
  }
  if (options.clock.now() > ticket.expiresAt + (options.skewMs ?? RELAY_CLOCK_SKEW_MS)) {
    return fail('ticket-expired', 'the relay ticket has expired: the host must issue a new one');
  }
  return ok({ v: 1, hostId: ticket.hostId, deviceId: ticket.deviceId, expiresAt: ticket.expiresAt });
}
