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
}
