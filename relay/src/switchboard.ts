import type { Clock, RandomBytes } from '@tether/shared-protocol';
import { RelayCloseCode, fail } from '@tether/shared-protocol';
import { Census } from './census.js';
import type { DeviceConnDeps } from './device-conn.js';
import { DeviceConn } from './device-conn.js';
import { Gate } from './gate.js';
import type { HostLinkDeps } from './host-link.js';
import { HostLink } from './host-link.js';
import type { RelayLimits } from './limits.js';
import type { RelayMetrics } from './metrics.js';
import { ByteBudget } from './outbox.js';
import type { PeerPort } from './peer-port.js';
import type { HostEndpoint, HostRoutes } from './routes.js';

/** What the switchboard asks of the cluster (Redis) when a host is not on this node. */
export interface ClusterLink extends HostRoutes {
  /** A host's link is now on this node (claim its presence; drop streams to its old node). */
  hostLinked(hostId: string): void;
  /** This node's link for a host is gone. */
  hostUnlinked(hostId: string): void;
}

export interface SwitchboardDeps {
  clock: Clock;
  random: RandomBytes;
  limits: RelayLimits;
  metrics: RelayMetrics;
  /** The relay's origin, named in host challenges. */
  origin: string;
  /** Whether this relay serves the app's pages: told to every host once it is linked. */
  servesApp?: boolean;
}

/**
 * A node's connections and where each goes: host links by host id (one per host: the newest wins),
 * device connections, and the node-wide bounds they share (queued bytes, waiting requests). A host
 * not on this node is looked for through the cluster, when there is one.
 */
export class Switchboard {
  readonly census: Census;
  readonly budget: ByteBudget;
  readonly requests: Gate;
  private readonly hosts = new Map<string, HostLink>();
  private readonly devices = new Set<DeviceConn>();
  private readonly links = new Set<HostLink>();
  cluster: ClusterLink | undefined;

  /** What every host link and every device connection shares: made once, here, not per socket. */
  private readonly hostDeps: HostLinkDeps;
  private readonly deviceDeps: DeviceConnDeps;

  constructor(deps: SwitchboardDeps) {
    this.census = new Census(deps.limits.maxPendingAuth, deps.limits.maxPendingAuthPerAddress);
    this.budget = new ByteBudget(deps.limits.nodeQueuedBytes);
    this.requests = new Gate(deps.limits.maxPendingRequests);
    const l = deps.limits;
    const common = {
      census: this.census,
      clock: deps.clock,
      metrics: deps.metrics,
      budget: this.budget,
      authDeadlineMs: l.authDeadlineMs,
      preauthMaxBytes: l.preauthMaxBytes,
      pingIntervalMs: l.pingIntervalMs,
      peerTimeoutMs: l.peerTimeoutMs,
      closeGraceMs: l.closeGraceMs,
    };
    this.hostDeps = {
      clock: deps.clock,
      random: deps.random,
      limits: l,
      metrics: deps.metrics,
      origin: deps.origin,
      servesApp: deps.servesApp ?? false,
      requests: this.requests,
      onAuthenticated: (link) => this.linked(link),
      onClosed: (link) => this.unlinked(link),
      peer: {
        ...common,
        kind: 'host',
        outbox: {
          maxBytes: l.hostOutboxBytes,
          maxFrames: l.hostOutboxFrames,
          shareBytes: l.hostShareBytes,
          shareFrames: l.hostShareFrames,
        },
        bytesPerSecond: l.hostBytesPerSecond,
        burstBytes: l.hostBurstBytes,
      },
    };
    this.deviceDeps = {
      clock: deps.clock,
      limits: l,
      metrics: deps.metrics,
      attach: (conn, hostId, deviceId, source) => this.attach(conn, hostId, deviceId, source),
      onClosed: (conn) => this.devices.delete(conn),
      peer: {
        ...common,
        kind: 'device',
        outbox: { maxBytes: l.deviceOutboxBytes, maxFrames: l.deviceOutboxFrames },
        bytesPerSecond: l.deviceBytesPerSecond,
        burstBytes: l.deviceBurstBytes,
      },
    };
  }

  /** The origin named in host challenges, once the listener knows its port. */
  setOrigin(origin: string): void {
    this.hostDeps.origin = origin;
  }

  get hostCount(): number {
    return this.hosts.size;
  }

  get deviceCount(): number {
    let n = 0;
    for (const d of this.devices) if (d.isOpen) n++;
    return n;
  }

  acceptHost(port: PeerPort): HostLink {
    const link = new HostLink(port, this.hostDeps);
    this.links.add(link);
    return link;
  }

  acceptDevice(port: PeerPort, hostId: string): DeviceConn {
    const conn = new DeviceConn(port, hostId, this.deviceDeps);
    this.devices.add(conn);
    return conn;
  }

  /** This node's link for `hostId`, if it has one. */
  local(hostId: string): HostEndpoint | undefined {
    return this.hosts.get(hostId);
  }

  attach: HostRoutes['attach'] = (downstream, hostId, deviceId, source) => {
    const link = this.hosts.get(hostId);
    if (link) return Promise.resolve(link.openConn(downstream, deviceId, source));
    if (this.cluster) return this.cluster.attach(downstream, hostId, deviceId, source);
    return Promise.resolve(fail('host-offline', 'the host is not connected to this relay'));
  };

  request: HostRoutes['request'] = (kind, hostId, source, body, signal) => {
    const link = this.hosts.get(hostId);
    if (link) return link.request(kind, source, body, signal);
    if (this.cluster) return this.cluster.request(kind, hostId, source, body, signal);
    return Promise.resolve(fail('host-offline', 'the host is not connected to this relay'));
  };

  /** Another node now holds this host's link: ours, if any, is the older one. */
  replacedElsewhere(hostId: string): void {
    this.hosts.get(hostId)?.peer.close(RelayCloseCode.Replaced, 'replaced', 'replaced');
  }

  /** Asks this node's link for `hostId`, if any, to link again now: its claim moved without a
   * newer link announcing itself, so the host is moved, not told it was replaced. */
  relinkHost(hostId: string): void {
    this.hosts.get(hostId)?.drain();
  }

  /** Tells every host linked here to link again elsewhere (the node is draining). */
  drainHosts(): void {
    for (const link of this.hosts.values()) link.drain();
  }

  /** Hosts linked here now. */
  get linkedHosts(): number {
    return this.hosts.size;
  }

  /** Closes every connection: cleanly (`GoingAway`) on shutdown, or at once to simulate a crash. */
  closeAll(hard: boolean): void {
    for (const conn of [...this.devices]) {
      if (hard) conn.peer.terminate(RelayCloseCode.GoingAway, 'shutting-down');
      else conn.peer.close(RelayCloseCode.GoingAway, 'shutting-down', 'shutting-down');
    }
    for (const link of [...this.links]) {
      if (hard) link.peer.terminate(RelayCloseCode.GoingAway, 'shutting-down');
      else link.peer.close(RelayCloseCode.GoingAway, 'shutting-down', 'shutting-down');
    }
  }

  private linked(link: HostLink): void {
    const older = this.hosts.get(link.hostId);
    this.hosts.set(link.hostId, link);
    if (older && older !== link) older.peer.close(RelayCloseCode.Replaced, 'replaced', 'replaced');
    this.cluster?.hostLinked(link.hostId);
  }

  private unlinked(link: HostLink): void {
    this.links.delete(link);
    if (this.hosts.get(link.hostId) !== link) return;
    this.hosts.delete(link.hostId);
    this.cluster?.hostUnlinked(link.hostId);
  }
}
