import { HANDSHAKE_CLOCK_WINDOW_MS, MAX_FRAME_PLAINTEXT, MAX_ONE_SHOT_BODY, MAX_PAIR_BODY } from '../limits.js';
import { FRAME_OVERHEAD } from '../frame-sizes.js';

/**
 * Limits of the relay's wire formats, shared by the relay, the host's relay link and the app.
 * The relay's own operational bounds (rates, queues, deadlines) live in the relay package.
 */

/** Version of the relay formats: the first byte of every host-link message and connect request.
 * Changes only for an incompatible layout change; a relay refuses any other value. */
export const RELAY_LINK_VERSION = 1;

/** Bytes of one relayed payload: the largest sealed frame (1 MiB of plaintext plus 29 bytes of
 * header and MAC). Hellos, welcomes and frames all fit; the relay refuses anything larger. */
export const RELAY_MAX_PAYLOAD = MAX_FRAME_PLAINTEXT + FRAME_OVERHEAD;

/** Bytes of a `data` frame's header on the host link: version, type and connection id. */
export const RELAY_DATA_HEADER_BYTES = 1 + 1 + 4;

/** Bytes of the largest host-link message: a `data` frame carrying the largest payload. */
export const RELAY_MAX_LINK_MESSAGE = RELAY_MAX_PAYLOAD + RELAY_DATA_HEADER_BYTES;

/** Bytes of a source address as the relay reports it (`2001:db8::1`, `203.0.113.7`): an IPv6
 * address with a zone fits in 64. */
export const RELAY_MAX_SOURCE_BYTES = 64;

/** Bytes of a close reason: the most a WebSocket close frame carries (125 minus the 2-byte code). */
export const RELAY_MAX_CLOSE_REASON_BYTES = 123;

/** Bytes of the relay origin in a challenge (`https://relay.example.com:8443`). */
export const RELAY_MAX_ORIGIN_BYTES = 255;

/** Bytes of a forwarded pair request body: the same cap the host's own `/rc/pair` applies. */
export const RELAY_MAX_PAIR_BODY = MAX_PAIR_BODY;

/** Bytes of a forwarded one-shot call: the same cap the host's own `/rc/call` applies. */
export const RELAY_MAX_CALL_BODY = MAX_ONE_SHOT_BODY;

/** Bytes of a reply to a pair request or a one-shot call: 256 KiB, room for one channel response
 * (a one-shot reply is one sealed response) while bounding what the relay holds per request. */
export const RELAY_MAX_REPLY_BODY = 256 * 1024;

/** Milliseconds a relay ticket stays acceptable after its `expiresAt`, and a challenge time may
 * differ from the host's clock: the same ±2 min the handshake allows, since phones and servers drift. */
export const RELAY_CLOCK_SKEW_MS = HANDSHAKE_CLOCK_WINDOW_MS;

/** Milliseconds a host makes its tickets valid for by default: 30 days. The relay does not bound it
 * (it keeps no device list): the host decides, and refreshes a device's ticket over the sealed channel. */
export const RELAY_TICKET_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Milliseconds before its expiry that a device asks its host for a fresh ticket: 10 days, a third
 * of the default lifetime, so a phone that opens the app only every week or so still renews in time. */
export const RELAY_TICKET_RENEW_BEFORE_MS = 10 * 24 * 60 * 60 * 1000;
