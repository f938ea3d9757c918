import type { Backplane } from '../cluster/backplane.js';

/**
 * An in-memory stand-in for Redis: node channels, a broadcast channel, host presence and node
 * heartbeats. Messages are delivered on a later microtask, in order, like pub/sub. With `hold`
 * set, publishes stay unacknowledged until `release()` (Redis not keeping up).
 */
export class MemoryNetwork {
  readonly nodes = new Map<string, MemoryBackplane>();
  readonly presence = new Map<string, string>();
  readonly alive = new Set<string>();

  join(nodeId: string): MemoryBackplane {
    const plane = new MemoryBackplane(nodeId, this);
    this.nodes.set(nodeId, plane);
    this.alive.add(nodeId);
    return plane;
  }
}

export class MemoryBackplane implements Backplane {
  onMessage: ((bytes: Uint8Array) => void) | null = null;
  onLost: (() => void) | null = null;
  onClaimLost: ((hostId: string) => void) | null = null;
  hold = false;
  private held: (() => void)[] = [];

  constructor(
    readonly nodeId: string,
    private readonly net: MemoryNetwork,
  ) {}

  send(node: string, bytes: Uint8Array): Promise<boolean> {
    const target = this.net.nodes.get(node);
    const copy = bytes.slice();
    return this.publish(() => target?.onMessage?.(copy));
  }

  broadcast(bytes: Uint8Array): Promise<boolean> {
    const copy = bytes.slice();
    return this.publish(() => {
      for (const n of this.net.nodes.values()) n.onMessage?.(copy);
    });
  }

  claim(hostId: string): Promise<void> {
    this.net.presence.set(hostId, this.nodeId);
    return Promise.resolve();
  }

  handOver(hostId: string, node: string): Promise<void> {
    if (this.net.presence.get(hostId) === this.nodeId) this.net.presence.set(hostId, node);
    return Promise.resolve();
  }

  release(hostId: string): Promise<void> {
    if (this.net.presence.get(hostId) === this.nodeId) this.net.presence.delete(hostId);
    return Promise.resolve();
  }

  locate(hostId: string): Promise<string | undefined> {
    const node = this.net.presence.get(hostId);
    return Promise.resolve(node && this.net.alive.has(node) ? node : undefined);
  }

  alive(nodes: readonly string[]): Promise<ReadonlySet<string>> {
    return Promise.resolve(new Set(nodes.filter((n) => this.net.alive.has(n))));
  }

  /** Acknowledges every held publish. */
  flush(): void {
    const held = this.held;
    this.held = [];
    for (const go of held) go();
  }

  private publish(deliver: () => void): Promise<boolean> {
    return new Promise((resolve) => {
      const go = () =>
        queueMicrotask(() => {
          deliver();
          resolve(true);
        });
      if (this.hold) this.held.push(go);
      else go();
    });
  }
}
