import type { Clock, TetherEvent } from '@tether/shared-protocol';
import { CloseCode } from '@tether/shared-protocol';
import type { DeviceStore } from '../store/device-store.js';
import type { DeviceConnection } from './device-connection.js';

/** Minimum milliseconds between two "last seen" writes for one device. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * The open device connections: events fan out to them, a revocation closes a device's
 * connections at once, and a device's "last seen" time follows its connections.
 */
export class DeviceHub {
  private readonly connections = new Set<DeviceConnection>();
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly devices: DeviceStore,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  opened(connection: DeviceConnection): void {
    this.connections.add(connection);
    this.touch(connection, true);
  }

  closed(connection: DeviceConnection): void {
    if (this.connections.delete(connection)) this.touch(connection, true);
  }

  /** Every published event goes to every connection; each routes it to its subscriptions. */
  deliver(event: TetherEvent): void {
    for (const connection of this.connections) {
      connection.deliver(event);
      this.touch(connection, false);
    }
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

  connectedDevices(): Set<string> {
    return new Set([...this.connections].flatMap((c) => (c.device ? [c.device.id] : [])));
  }

  private touch(connection: DeviceConnection, force: boolean): void {
    const id = connection.device?.id;
    if (!id) return;
    const now = this.clock.now();
    if (!force && now - (this.touched.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    this.devices.touch(id, now);
  }
}
