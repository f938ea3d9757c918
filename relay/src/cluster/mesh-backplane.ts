import type { Clock } from '@tether/shared-protocol';
import type { RelayMetrics } from '../metrics.js';
import type { Backplane, ClusterPath } from './backplane.js';
import { parseMeshAddress } from './mesh-auth.js';
import type { MeshConn } from './mesh-link.js';
import { dialMesh } from './mesh-link.js';
import type { RedisBackplane } from './redis-backplane.js';

/** Milliseconds a dial to a peer may take before its messages go through Redis instead. */
export const MESH_DIAL_TIMEOUT_MS = 1_000;
/** Milliseconds between dials to a peer whose link could not be made (its messages go through Redis). */
export const MESH_RETRY_MS = 5_000;
/** Messages held for a peer while its link is being dialed (bytes are bounded by the sender). */
const MAX_DIALING_QUEUE = 4_096;
/** Peers remembered at once; past it, one whose messages go through Redis is forgotten. */
const MAX_PEERS = 1_024;

/** How this node reaches one peer: a link being dialed (messages wait, in order), a link, or Redis. */
interface Peer {
  state: 'dialing' | 'direct' | 'redis';
  conn?: MeshConn;
  queue: { bytes: Uint8Array; resolve: (sent: boolean) => void }[];
  /** When Redis is the path: when to dial again. */
  retryAt: number;
}

/**
 * The backplane with a mesh: presence, claims and broadcasts through Redis as before, and the
 * messages for one node over a link this node dialed to it (mesh-link.ts), found at the address
 * that node advertises in Redis. A node without a link to a peer (no key, no address, a dial
 * refused or late) sends through Redis.
 *
 * Messages for one node never overtake each other: the first message to a peer waits for its dial,
 * and then everything goes one way. When the way changes (the link drops, or a link is made to a
 * peer that was reached through Redis), what was in flight on the old way may be lost or arrive
 * after what takes the new way, so the streams with that peer are reset (`onPeerLost`), as when a
 * subscription drops; the closes and everything after take the new way. The receiving end resets
 * its streams with a peer whose link closed, too.
 */
export class MeshBackplane implements Backplane {
  onMessage: ((bytes: Uint8Array, path?: ClusterPath) => void) | null = null;
  onLost: (() => void) | null = null;
  onClaimLost: ((hostId: string) => void) | null = null;
  onPeerLost: ((node: string) => void) | null = null;
  private readonly peers = new Map<string, Peer>();
  private stopped = false;

  constructor(
    readonly redis: RedisBackplane,
    private readonly o: { key: Uint8Array | undefined; clock: Clock; metrics: RelayMetrics },
  ) {
    redis.onMessage = (bytes) => this.onMessage?.(bytes, 'redis');
    redis.onLost = () => this.onLost?.();
    redis.onClaimLost = (hostId) => this.onClaimLost?.(hostId);
  }

  get nodeId(): string {
    return this.redis.nodeId;
  }

  /** Links this node dialed and holds now. */
  get links(): number {
    let n = 0;
    for (const p of this.peers.values()) if (p.state === 'direct') n++;
    return n;
  }

  send(node: string, bytes: Uint8Array): Promise<boolean> {
    if (!this.o.key || this.stopped) return this.viaRedis(node, bytes);
    const peer = this.peers.get(node) ?? this.dial(node);
    if (peer.state === 'direct') {
      this.o.metrics.cluster('out', bytes.length, 'direct');
      return peer.conn!.send(bytes);
    }
    if (peer.state === 'dialing') {
      if (peer.queue.length >= MAX_DIALING_QUEUE) return Promise.resolve(false);
      return new Promise((resolve) => peer.queue.push({ bytes, resolve }));
    }
    if (this.o.clock.now() >= peer.retryAt) this.retry(node, peer);
    return this.viaRedis(node, bytes);
  }

  broadcast(bytes: Uint8Array): Promise<boolean> {
    this.o.metrics.cluster('out', bytes.length, 'redis');
    return this.redis.broadcast(bytes);
  }

  readonly claim: Backplane['claim'] = (hostId) => this.redis.claim(hostId);
  readonly generation: Backplane['generation'] = (hostId) => this.redis.generation(hostId);
  readonly release: Backplane['release'] = (hostId) => this.redis.release(hostId);
  readonly locate: Backplane['locate'] = (hostId) => this.redis.locate(hostId);
  readonly alive: Backplane['alive'] = (nodes) => this.redis.alive(nodes);

  /** A message from a peer's link to this node (the listener has checked it and who sent it). */
  receive(bytes: Uint8Array): void {
    this.onMessage?.(bytes, 'direct');
  }

  /** Closes every link this node dialed, after what is queued on it (`graceful`) or at once; what
   * is sent from now on goes through Redis. */
  stop(graceful = false): void {
    this.stopped = true;
    for (const peer of this.peers.values()) peer.conn?.close(graceful);
    this.peers.clear();
  }

  private viaRedis(node: string, bytes: Uint8Array): Promise<boolean> {
    this.o.metrics.cluster('out', bytes.length, 'redis');
    return this.redis.send(node, bytes);
  }

  private dial(node: string): Peer {
    const peer: Peer = { state: 'dialing', queue: [], retryAt: 0 };
    if (this.peers.size >= MAX_PEERS) {
      for (const [id, p] of this.peers) {
        if (p.state === 'redis') {
          this.peers.delete(id);
          break;
        }
      }
    }
    this.peers.set(node, peer);
    void this.connect(node).then((conn) => {
      if (this.peers.get(node) !== peer) return conn?.close();
      if (conn) this.adopt(node, peer, conn);
      else this.fallBack(peer);
      // The path is chosen: what waited goes first, in order, and what follows goes after it.
      for (const { bytes, resolve } of peer.queue.splice(0)) void this.send(node, bytes).then(resolve);
    });
    return peer;
  }

  /** Dials again a peer reached through Redis; a link made switches the way, and resets its streams. */
  private retry(node: string, peer: Peer): void {
    peer.retryAt = this.o.clock.now() + MESH_RETRY_MS;
    void this.connect(node).then((conn) => {
      if (!conn) return;
      if (this.peers.get(node) !== peer || peer.state !== 'redis') return conn.close();
      this.adopt(node, peer, conn);
      this.onPeerLost?.(node);
    });
  }

  private async connect(node: string): Promise<MeshConn | undefined> {
    const advertised = await this.redis.meshAddress(node);
    const address = advertised === undefined ? undefined : parseMeshAddress(advertised);
    if (!address || this.stopped || !this.o.key) return undefined;
    return dialMesh({
      address: advertised!,
      key: this.o.key,
      self: this.nodeId,
      peer: node,
      timeoutMs: MESH_DIAL_TIMEOUT_MS,
    });
  }

  private adopt(node: string, peer: Peer, conn: MeshConn): void {
    peer.state = 'direct';
    peer.conn = conn;
    conn.watch();
    conn.onClose = () => {
      if (this.peers.get(node) !== peer) return;
      // Forgotten: the next message to this peer dials afresh (or finds Redis the way).
      this.peers.delete(node);
      this.onPeerLost?.(node);
    };
  }

  private fallBack(peer: Peer): void {
    peer.state = 'redis';
    peer.retryAt = this.o.clock.now() + MESH_RETRY_MS;
  }
}
