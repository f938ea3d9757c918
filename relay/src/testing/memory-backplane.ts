import type { Backplane } from '../cluster/backplane.js';

/**
 * An in-memory stand-in for Redis: node channels, a broadcast channel, host presence and node
 * heartbeats. Messages are delivered on a later microtask, in order, like pub/sub. With `hold`
 * set, publishes stay unacknowledged until `release()` (Redis not keeping up).
 */
export class MemoryNetwork {
  readonly nodes = new Map<string, MemoryBackplane>();
  /** Which node holds each host, at which generation (as Redis's `host:` key does). */
  readonly presence = new Map<string, { node: string; gen: number }>();
  /** Each host's last generation. */
  readonly generations = new Map<string, number>();
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
  private readonly gens = new Map<string, number>();

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

  /** Takes the host's next generation at once, as Redis's script does in one step. With `hold`
   * set, the claim waits for `flush()` like a publish (Redis not answering yet). */
  claim(hostId: string): Promise<number | undefined> {
    return new Promise((resolve) => {
      const go = () => {
        const gen = (this.net.generations.get(hostId) ?? 0) + 1;
        this.net.generations.set(hostId, gen);
        this.net.presence.set(hostId, { node: this.nodeId, gen });
        this.gens.set(hostId, gen);
        resolve(gen);
      };
      if (this.hold) this.held.push(go);
      else go();
    });
  }

  generation(hostId: string): number | undefined {
    return this.gens.get(hostId);
  }

  release(hostId: string): Promise<void> {
    const held = this.net.presence.get(hostId);
    const gen = this.gens.get(hostId);
    this.gens.delete(hostId);
    if (held?.node === this.nodeId && (gen === undefined || held.gen === gen)) this.net.presence.delete(hostId);
    return Promise.resolve();
  }

  locate(hostId: string): Promise<string | undefined> {
    const node = this.net.presence.get(hostId)?.node;
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
