import { HIGH_WATER_BYTES } from '../streams/outbox.js';

/**
 * Bounds of the host's side of a relay link, each with its unit and reason. The relay has its own
 * (docs/relay.md#limits); these keep the host's memory and patience bounded whatever the relay does.
 */

/** Milliseconds between the host's checks of the link: under the relay's own 25 s pings, so a
 * quiet link gets a ping from each side well inside common 30 s idle timeouts. */
export const LINK_PING_MS = 25_000;

/** Milliseconds without hearing anything from the relay (a frame, a ping, a pong) before the link
 * is taken for dead and dialled again: 75 s, three ping intervals, as the relay does for hosts. */
export const LINK_DEAD_MS = 3 * LINK_PING_MS;

/** Milliseconds from dialling to the relay's `ready`: above the relay's own 10 s authentication
 * deadline, so the relay gives up first and says why. */
export const LINK_READY_DEADLINE_MS = 15_000;

/** Bytes one device connection may have queued on the link (handed to the socket, not yet written
 * to the network): twice the gateway's 4 MiB high-water mark. The gateway paces each subscription
 * by this count and cuts a slow device off at the high-water mark; this is the backstop for what
 * is not paced (replies), so one device can never make the link hold more than this for it. */
export const MAX_CONN_QUEUED_BYTES = 2 * HIGH_WATER_BYTES;

/** Bytes the whole link may have queued: 32 MiB, what the relay's link takes at its 16 MiB/s read
 * rate in two seconds. A device whose frame would go past it is closed as too slow (it resumes by
 * sequence number), so the relay link never grows without bound behind a slow relay. */
export const MAX_LINK_QUEUED_BYTES = 32 * 1024 * 1024;

/** Pair requests and one-shot calls the host works on at once for the relay: the relay allows 32
 * waiting per host, so this is never the first bound to bite; it is the host's own. */
export const MAX_LINK_REQUESTS = 32;

/** Milliseconds a link must stay up before its end counts as an ordinary drop rather than a
 * failure: 5 s. A relay that closes or drains the link sooner (right after `ready`) sets the
 * backoff growing, whatever it said, so it cannot make the host relink in a tight loop; a node
 * drained in a rolling restart has held its hosts far longer. */
export const LINK_STABLE_MS = 5_000;

/** How long a relay that refused this host is passed over: 30 s, doubling with each refusal in a
 * row, up to 30 minutes. Its word is about itself only, and may be false (a hostile or
 * misconfigured relay) or true for a while (another `tether start` with this host's key), so the
 * host goes on with its other relays and asks this one again later, never stopping for good. */
export const RELAY_HOLD_BACKOFF = { baseMs: 30_000, maxMs: 30 * 60_000 };

/** Milliseconds a link to a relay must last for its earlier refusals to be forgotten: 10 minutes,
 * so two processes holding one key, taking the link from each other, wait longer each time. */
export const RELAY_HOLD_FORGET_MS = 10 * 60_000;
