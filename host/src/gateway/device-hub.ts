import type { Clock, TetherEvent } from '@tether/shared-protocol';
import { CloseCode } from '@tether/shared-protocol';
import type { HostCounters } from '../stats/host-counters.js';
import type { DeviceStore } from '../store/device-store.js';
import type { DeviceConnection } from './device-connection.js';
import { ViewerFanout } from './viewer-fanout.js';

/** Minimum milliseconds between two "last seen" writes for one device. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * The open device connections: events fan out to them, a revocation closes a device's
 * connections at once, and a device's "last seen" time follows its connections. Share links'
 * viewers are kept apart: they get each event after every device has it (`ViewerFanout`).
 */
export class DeviceHub {
  private readonly connections = new Set<DeviceConnection>();
  private readonly viewers: ViewerFanout;
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly devices: DeviceStore,
    private readonly clock: Clock,
    stats: HostCounters,
    /** Writes a share link's "last seen" (its viewers touch it as devices do theirs). */
    private readonly touchLink: (id: string, at: number) => void = () => undefined,
  ) {
    this.viewers = new ViewerFanout(clock, stats);
  }

  opened(connection: DeviceConnection): void {
    if (connection.viewer) this.viewers.add(connection);
    else this.connections.add(connection);
    this.touch(connection, true);
  }

  closed(connection: DeviceConnection): void {
    if (this.connections.delete(connection) || this.viewers.delete(connection)) this.touch(connection, true);
  }

  /** Every published event goes to every device connection, then (later) to the viewers. */
  deliver(event: TetherEvent): void {
    for (const connection of this.connections) {
      connection.deliver(event);
      this.touch(connection, false);
    }
    this.viewers.deliver(event);
  }

  /** Closes every connection of a device (revoked): it is told so before the close. */
  disconnectDevice(deviceId: string): number {
    let closed = 0;
    for (const connection of [...this.connections]) {
      if (connection.device?.id !== deviceId) continue;
      connection.sendBye(
        'revoked',
        'this device was revoked at the computer; pair again to reconnect',
        CloseCode.Revoked,
      );
      closed++;
    }
    return closed;
  }

  /** Closes every viewer of a share link that stopped working: each is told why, sealed. */
  cutViewers(linkId: string, why: 'revoked' | 'expired'): number {
    const viewers = this.viewers.list(linkId);
    const message = why === 'revoked' ? 'this link was revoked' : 'this link has expired';
    for (const viewer of viewers) viewer.sendBye('revoked', message, CloseCode.Revoked);
    return viewers.length;
  }

  /** Viewers connected through a share link now. */
  viewerCount(linkId: string): number {
    return this.viewers.count(linkId);
  }

  /** Viewer connections, every one or a link's. */
  viewerConnections(linkId?: string): DeviceConnection[] {
    return this.viewers.list(linkId);
  }

  connectedDevices(): Set<string> {
    return new Set([...this.connections].flatMap((c) => (c.device ? [c.device.id] : [])));
  }

  private touch(connection: DeviceConnection, force: boolean): void {
    const id = connection.device?.id;
    if (!id) return;
    const now = this.clock.now();
    if (!force && now - (this.touched.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    if (connection.viewer) this.touchLink(id, now);
    else this.devices.touch(id, now);
  }
}
