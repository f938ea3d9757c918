/**
 * What the cluster router needs from the shared store (Redis in production, an in-memory one in
 * unit tests): a channel per node and one for everyone, and presence: which node holds each host's
 * link, and which nodes are alive.
 */
export interface Backplane {
  readonly nodeId: string;
  /** Publishes to one node. Resolves false if the message could not be handed to the store. */
  send(node: string, bytes: Uint8Array): Promise<boolean>;
  /** Publishes to every node (including this one). */
  broadcast(bytes: Uint8Array): Promise<boolean>;
  /** Records that this node now holds `hostId`'s link (newest wins), and keeps it fresh. */
  claim(hostId: string): Promise<void>;
  /**
   * Gives the claim, if it is still this node's, to `node`, which took the link: a claim of this
   * node's that reached the store after the newer one (both are sent at about the same time from
   * two nodes) must not leave the host's presence pointing here, or deleted by `release`.
   */
  handOver(hostId: string, node: string): Promise<void>;
  /** Forgets the claim, if it is still this node's. */
  release(hostId: string): Promise<void>;
  /** The live node holding `hostId`'s link, if any. */
  locate(hostId: string): Promise<string | undefined>;
  /** Which of `nodes` are alive (their heartbeat has not expired). */
  alive(nodes: readonly string[]): Promise<ReadonlySet<string>>;
  /** Messages for this node (sent to it or broadcast). */
  onMessage: ((bytes: Uint8Array) => void) | null;
  /** Messages may have been missed (the subscription was interrupted): streams cannot be trusted. */
  onLost: (() => void) | null;
  /** A claim of this node's was taken over without a broadcast reaching it. */
  onClaimLost: ((hostId: string) => void) | null;
}
