import type { Transport } from '@tether/shared-protocol';

/**
 * A device connection as the host sees it: the client's Transport, plus how much it has queued
 * and not yet sent (for backpressure), and the peer's address (for logs and limits). A WebSocket
 * provides one; the relay link will provide another.
 */
export interface GatewayTransport extends Transport {
  /** Bytes handed to `send` and not yet written to the network. */
  bufferedAmount(): number;
  readonly remoteAddress: string;
  /** What the connection shares with others on its way, when it shares anything (a relay link). */
  readonly path?: SharedPath;
}

/**
 * A way in that several connections share, with bounds of its own: a relay link, which carries at
 * most so many of a host's connections and queues at most so many bytes for all of them. Share
 * links' viewers keep out of the devices' way by it (gateway/viewer-fanout.ts).
 */
export interface SharedPath {
  /** Connections it may still carry. */
  room(): number;
  /** How full its queue is, from 0 to 1. */
  pressure(): number;
}
