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
