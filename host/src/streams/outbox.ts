import type { ChannelMessage } from '@tether/shared-protocol';

/** Bytes a device may have queued before a live session event closes it as too slow: 4 MiB,
 * several seconds of a busy transcript on a slow phone link. It resumes from its last sequence
 * number, so nothing is lost, only delayed. */
export const HIGH_WATER_BYTES = 4 * 1024 * 1024;
/** Below this a paced sender (a replay, a parked update, a stream) goes on: 1 MiB. */
export const LOW_WATER_BYTES = 1024 * 1024;

/**
 * What a subscription sends through: one connection's sealed, ordered outbox. The transport's
 * queue is shared by every subscription on the connection, so each one paces itself by it with
 * its own policy (see subscriptions.ts) rather than all sharing one cut-off.
 */
export interface Outbox {
  send(message: ChannelMessage): void;
  /** Seals and sends a binary message (terminal output) as it is; absent where the other end
   * reads only JSON lines (the control socket). */
  sendBinary?(plain: Uint8Array): void;
  /** Bytes handed to the transport and not yet written to the network. */
  buffered(): number;
  /** Resolves once `buffered()` is under LOW_WATER_BYTES, or the connection closed. */
  drained(): Promise<void>;
  readonly closed: boolean;
  /** Ends the whole connection as too slow, saying so; the device resumes by sequence number. */
  cutOff(): void;
}
