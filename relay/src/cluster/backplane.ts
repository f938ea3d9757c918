/** The way a message between nodes took: a node-to-node link (the mesh), or Redis pub/sub. */
export type ClusterPath = 'direct' | 'redis';

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
  /**
   * Records that this node now holds `hostId`'s link, in one step in the store: the claim takes the
   * host's next generation and becomes the holder, so of two claims the store orders one after the
   * other, and the later one (the higher generation) is the holder everywhere. Resolves to that
   * generation, or undefined if the store could not answer (then the claim is retried, only while
   * nobody else holds the host, at each refresh). Kept fresh while the link lives.
   */
  claim(hostId: string): Promise<number | undefined>;
  /** This node's claim of `hostId` now: its generation, once the store has given one (a claim
   * whose answer came late is adopted at a refresh). */
  generation(hostId: string): number | undefined;
  /** Forgets the claim, if it is still this node's (its generation, or any of this node's if the
   * generation never came back). */
  release(hostId: string): Promise<void>;
  /** The live node holding `hostId`'s link, if any. */
  locate(hostId: string): Promise<string | undefined>;
  /** Which of `nodes` are alive (their heartbeat has not expired). */
  alive(nodes: readonly string[]): Promise<ReadonlySet<string>>;
  /** Messages for this node (sent to it or broadcast), and the way each came (Redis unless said). */
  onMessage: ((bytes: Uint8Array, path?: ClusterPath) => void) | null;
  /** Messages may have been missed (the subscription was interrupted): streams cannot be trusted. */
  onLost: (() => void) | null;
  /** Messages to or from one node may have been missed or reordered (its link dropped, or the way
   * to it changed): the streams with that node cannot be trusted. */
  onPeerLost?: ((node: string) => void) | null;
  /** A claim of this node's was found held by another (a claim whose broadcast did not reach this
   * node, or a key someone wrote): the host is asked to link again, never stopped. */
  onClaimLost: ((hostId: string) => void) | null;
}
