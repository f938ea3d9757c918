import type { Clock, Result, TimerHandle } from '@tether/shared-protocol';
import { CloseCode, RelayCloseCode, fail, ok } from '@tether/shared-protocol';
import type { Gate } from '../gate.js';
import type { RelayLimits } from '../limits.js';
import type { DropReason, RelayMetrics } from '../metrics.js';
import type { Downstream, HostEndpoint, HostRoutes, Upstream } from '../routes.js';
import { clipReason } from '../routes.js';
import type { ClusterLink } from '../switchboard.js';
import type { Backplane, ClusterPath } from './backplane.js';
import type { ClusterMessage } from './cluster-message.js';
import { decodeClusterMessage } from './cluster-message.js';
import { ClusterRequests } from './cluster-requests.js';
import { ClusterSender } from './cluster-sender.js';

export interface ClusterRouterDeps {
  backplane: Backplane;
  clock: Clock;
  limits: RelayLimits;
  metrics: RelayMetrics;
  local: {
    local(hostId: string): HostEndpoint | undefined;
    replacedElsewhere(hostId: string): void;
    /** Asks this node's link for `hostId` to link again now (`drain`). */
    relinkHost(hostId: string): void;
    readonly requests: Gate;
  };
}

/** A stream whose device is on this node and whose host link is on `node`. */
interface OutStream {
  node: string;
  hostId: string;
  downstream: Downstream;
  inflight: number;
  /** Until the other node acknowledges the open. */
  attach?: { resolve: (r: Result<Upstream>) => void; timer: TimerHandle };
}

/** A stream whose host link is on this node and whose device is on `node`. */
interface InStream {
  node: string;
  streamId: number;
  upstream: Upstream;
  inflight: number;
}

/**
 * Forwards device connections and requests between nodes. A device on this node whose host is on
 * another gets an out-stream: its bytes are published to that node, which holds the matching
 * in-stream as one more connection on the host's link. Both ends bound what they have published
 * and Redis has not yet acknowledged (per stream and per node): past either bound the stream is
 * closed, never buffered. A stream ends when either side closes it, when the other node stops
 * heartbeating, when the host's link moves to another node, or when this node may have missed
 * messages (its subscription dropped): a sealed channel with a gap is worthless, so it is closed
 * and the device reconnects.
 */
export class ClusterRouter implements ClusterLink {
  private readonly out = new Map<number, OutStream>();
  private readonly in = new Map<string, InStream>();
  private readonly requests: ClusterRequests;
  /** This node's claim of each host whose link it holds: the generation Redis gave it, once known. */
  private readonly claims = new Map<string, Promise<number | undefined>>();
  private nextStreamId = 1;
  private readonly sender: ClusterSender;
  private checkTimer: TimerHandle | undefined;
  private stopped = false;

  constructor(private readonly deps: ClusterRouterDeps) {
    this.sender = new ClusterSender(deps);
    this.requests = new ClusterRequests(deps, this.sender, () => this.stopped);
    deps.backplane.onMessage = (bytes, path) => this.receive(bytes, path);
    deps.backplane.onLost = () => this.lost();
    deps.backplane.onPeerLost = (node) => this.lost('mesh-link-lost', node);
    // Redis holds another claim than this node's, and no node announced it: a broadcast lost, or a
    // key someone wrote. The host links again (wherever it lands, it claims afresh); a claim in
    // Redis may move a host, never stop it.
    deps.backplane.onClaimLost = (hostId) => deps.local.relinkHost(hostId);
    this.scheduleCheck();
  }

  get inflightBytes(): number {
    return this.sender.inflightBytes;
  }

  get streams(): { out: number; in: number } {
    return { out: this.out.size, in: this.in.size };
  }

  async attach(downstream: Downstream, hostId: string, deviceId: string, source: string): Promise<Result<Upstream>> {
    const node = await this.deps.backplane.locate(hostId);
    if (!node || node === this.deps.backplane.nodeId || this.stopped) {
      return fail('host-offline', 'the host is not connected to any relay node');
    }
    const streamId = this.nextStreamId++;
    return new Promise((resolve) => {
      const stream: OutStream = { node, hostId, downstream, inflight: 0 };
      stream.attach = {
        resolve,
        timer: this.deps.clock.setTimeout(() => {
          if (!stream.attach) return;
          this.out.delete(streamId);
          this.deps.metrics.drop('open-timeout');
          resolve(fail('host-offline', 'the node holding the host did not answer'));
          this.sender.post(node, { type: 'device-closed', streamId, code: 1001, reason: 'open-timeout' });
        }, this.deps.limits.openAckTimeoutMs),
      };
      this.out.set(streamId, stream);
      this.sender.post(node, { type: 'open', streamId, hostId, deviceId, source });
    });
  }

  readonly request: HostRoutes['request'] = (...args) => this.requests.forward(...args);

  hostLinked(hostId: string): void {
    // Streams from here to the host's old node are dead ends now: its link is here.
    for (const [streamId, stream] of this.out) {
      if (stream.hostId === hostId) this.endOut(streamId, RelayCloseCode.HostGone, 'host-gone', 'host-gone', true);
    }
    const claimed = this.deps.backplane.claim(hostId);
    this.claims.set(hostId, claimed);
    void claimed.then((gen) => {
      if (gen !== undefined) this.sender.broadcast({ type: 'claim', hostId, gen });
    });
  }

  hostUnlinked(hostId: string): void {
    this.claims.delete(hostId);
    void this.deps.backplane.release(hostId);
  }

  /** Stops: every stream is closed and every wait fails (the node is leaving or crashing). */
  stop(): void {
    this.stopped = true;
    if (this.checkTimer) this.deps.clock.clearTimeout(this.checkTimer);
    this.lost('shutting-down');
  }

  private receive(bytes: Uint8Array, path: ClusterPath = 'redis'): void {
    const decoded = decodeClusterMessage(bytes);
    if (!decoded.ok) return this.deps.metrics.drop('cluster-malformed');
    const { from, message: m } = decoded.value;
    this.deps.metrics.cluster('in', bytes.length, path);
    switch (m.type) {
      case 'open':
        return this.opened(from, m);
      case 'opened': {
        const stream = this.out.get(m.streamId);
        if (!stream?.attach || stream.node !== from) return;
        const attach = stream.attach;
        delete stream.attach;
        this.deps.clock.clearTimeout(attach.timer);
        return attach.resolve(ok(this.upstreamFor(m.streamId, stream)));
      }
      case 'to-host': {
        const stream = this.in.get(`${from}/${m.streamId}`);
        if (!stream) return this.deps.metrics.drop('unknown-conn');
        return stream.upstream.send(m.payload);
      }
      case 'to-device': {
        const stream = this.out.get(m.streamId);
        if (!stream || stream.node !== from || stream.attach) return this.deps.metrics.drop('unknown-conn');
        return stream.downstream.send(m.payload);
      }
      case 'device-closed': {
        const key = `${from}/${m.streamId}`;
        const stream = this.in.get(key);
        if (!stream) return;
        this.in.delete(key);
        return stream.upstream.close(m.code, m.reason);
      }
      case 'host-closed': {
        const stream = this.out.get(m.streamId);
        if (!stream || stream.node !== from) return;
        this.out.delete(m.streamId);
        if (stream.attach) {
          this.deps.clock.clearTimeout(stream.attach.timer);
          return stream.attach.resolve(
            fail(m.reason === 'host-full' ? 'busy' : 'host-offline', 'the host refused the connection'),
          );
        }
        return stream.downstream.close(m.code, m.reason);
      }
      case 'request':
        return void this.requests.serve(from, m);
      case 'reply':
      case 'failure':
        return this.requests.answered(from, m);
      case 'claim':
        if (from === this.deps.backplane.nodeId) return;
        return this.claimHeard(from, m.hostId, m.gen);
    }
  }

  /**
   * Another node took `hostId`'s link at generation `gen`. A link of ours yields only to a later
   * claim: when two links for one host come up on two nodes at the same moment, both claims are
   * announced, and the node whose claim Redis ran first (the lower generation) closes its link,
   * the other keeps its own. A claim of ours still on its way to Redis is waited for; one Redis did
   * not answer yields.
   */
  private claimHeard(from: string, hostId: string, gen: number): void {
    const mine = this.claims.get(hostId);
    if (!mine) return this.movedTo(from, hostId);
    void mine.then((answered) => {
      // A newer link of ours came up meanwhile: compare with its claim instead.
      if (this.claims.get(hostId) !== mine) return this.claimHeard(from, hostId, gen);
      // A claim Redis answered too late has its generation from the refresh that adopted it.
      const ours = answered ?? this.deps.backplane.generation(hostId);
      const keep = ours !== undefined && (ours > gen || (ours === gen && this.deps.backplane.nodeId > from));
      if (!keep) this.movedTo(from, hostId);
    });
  }

  /** The host's link is on `from` now: ours (the older) closes, and streams to its old node end. */
  private movedTo(from: string, hostId: string): void {
    this.deps.local.replacedElsewhere(hostId);
    for (const [streamId, stream] of this.out) {
      if (stream.hostId === hostId && stream.node !== from) {
        this.endOut(streamId, RelayCloseCode.HostGone, 'host-gone', 'host-gone', true);
      }
    }
  }

  /** Another node's device wants a host whose link is here. */
  private opened(from: string, m: Extract<ClusterMessage, { type: 'open' }>): void {
    const refuse = (code: number, reason: string) =>
      this.sender.post(from, { type: 'host-closed', streamId: m.streamId, code, reason });
    const link = this.deps.local.local(m.hostId);
    if (!link) return refuse(RelayCloseCode.HostOffline, 'host-offline');
    const key = `${from}/${m.streamId}`;
    const stream: InStream = { node: from, streamId: m.streamId, upstream: { send() {}, close() {} }, inflight: 0 };
    const downstream: Downstream = {
      send: (payload) => {
        if (this.in.get(key) !== stream) return;
        this.sender.publishData(stream, from, { type: 'to-device', streamId: m.streamId, payload }, () =>
          this.endIn(key, CloseCode.SlowConsumer, 'cluster-queue-full'),
        );
      },
      close: (code, reason) => {
        if (this.in.get(key) !== stream) return;
        this.in.delete(key);
        this.sender.post(from, { type: 'host-closed', streamId: m.streamId, code, reason: clipReason(reason) });
      },
    };
    const opened = link.openConn(downstream, m.deviceId, m.source);
    if (!opened.ok) return refuse(CloseCode.Busy, opened.error.code === 'busy' ? 'host-full' : 'host-offline');
    stream.upstream = opened.value;
    this.in.set(key, stream);
    this.sender.post(from, { type: 'opened', streamId: m.streamId });
  }

  private upstreamFor(streamId: number, stream: OutStream): Upstream {
    return {
      send: (payload) => {
        if (this.out.get(streamId) !== stream) return;
        this.sender.publishData(stream, stream.node, { type: 'to-host', streamId, payload }, () =>
          this.endOut(streamId, CloseCode.SlowConsumer, 'cluster-queue-full', 'cluster-queue-full', true),
        );
      },
      close: (code, reason) => this.endOut(streamId, code, clipReason(reason), undefined, false),
    };
  }

  /** Ends an out-stream from this side: close the device (unless it is the one closing) and, if
   * `tell`, the other node. */
  private endOut(
    streamId: number,
    code: number,
    reason: string,
    drop: DropReason | undefined,
    closeDevice: boolean,
  ): void {
    const stream = this.out.get(streamId);
    if (!stream) return;
    this.out.delete(streamId);
    if (drop) this.deps.metrics.drop(drop);
    if (stream.attach) {
      this.deps.clock.clearTimeout(stream.attach.timer);
      stream.attach.resolve(fail('host-offline', 'the host went away'));
    } else if (closeDevice) stream.downstream.close(code, reason);
    this.sender.post(stream.node, { type: 'device-closed', streamId, code, reason });
  }

  /** Ends an in-stream from this side: the host's link is told, and the device's node. */
  private endIn(key: string, code: number, reason: DropReason): void {
    const stream = this.in.get(key);
    if (!stream) return;
    this.in.delete(key);
    this.deps.metrics.drop(reason);
    stream.upstream.close(code, reason);
    this.sender.post(stream.node, { type: 'host-closed', streamId: stream.streamId, code, reason });
  }

  /** Messages may have been missed (from `node`, or from any), or the node is stopping: nothing in
   * flight (with that node) can be trusted. */
  private lost(reason: DropReason = 'cluster-link-lost', node?: string): void {
    for (const [streamId, s] of [...this.out]) {
      if (node === undefined || s.node === node) this.endOut(streamId, RelayCloseCode.HostGone, reason, reason, true);
    }
    for (const [key, s] of [...this.in])
      if (node === undefined || s.node === node) this.endIn(key, RelayCloseCode.HostGone, reason);
    this.requests.failAll(node);
  }

  /** Every heartbeat interval: close what this node holds with nodes that have stopped beating. */
  private scheduleCheck(): void {
    this.checkTimer = this.deps.clock.setTimeout(() => {
      void this.checkNodes().finally(() => {
        if (!this.stopped) this.scheduleCheck();
      });
    }, this.deps.limits.nodeHeartbeatMs);
  }

  private async checkNodes(): Promise<void> {
    const nodes = new Set<string>();
    for (const s of this.out.values()) nodes.add(s.node);
    for (const s of this.in.values()) nodes.add(s.node);
    for (const node of this.requests.nodes()) nodes.add(node);
    if (nodes.size === 0) return;
    const alive = await this.deps.backplane.alive([...nodes]);
    for (const [streamId, s] of this.out) {
      if (!alive.has(s.node)) this.endOut(streamId, RelayCloseCode.HostGone, 'host-gone', 'node-gone', true);
    }
    for (const [key, s] of this.in) if (!alive.has(s.node)) this.endIn(key, 1001, 'node-gone');
    this.requests.failGone(alive);
  }
}
