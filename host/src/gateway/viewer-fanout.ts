import type { Clock, SessionEvent, TetherEvent } from '@tether/shared-protocol';
import { CloseCode, isSessionEvent } from '@tether/shared-protocol';
import type { HostCounters } from '../stats/host-counters.js';
import type { DeviceConnection } from './device-connection.js';

/** Events waiting for the viewers at most; past it every viewer is cut off (they resume by sequence
 * number): a host that cannot keep up drops its viewers before anything of its devices. */
export const MAX_VIEWER_BACKLOG = 2048;
/** How full a shared way in (a relay link's queue) may be before a viewer on it is cut off rather
 * than sent more: the rest is the devices', so a viewer never makes the link drop a device. */
export const MAX_VIEWER_PATH_PRESSURE = 0.25;
/** Deliveries to viewers in one turn before the host's other work (its devices, their requests,
 * new events) gets its own: one is a seal and a write of a frame encoded once for all (~15 µs), so
 * a turn is about half a millisecond. A turn is a timer, which Node runs after pending I/O. */
export const VIEWER_SLICE = 32;

/**
 * Share links' viewers, and their events. A published event reaches every device first, at once;
 * the viewers get it afterwards, a slice per turn on timers, so a crowd of viewers (200 on one link, each
 * its own sealed frame) never comes between an event and the owner's devices. Each viewer's
 * session watch then paces itself and drops what its replay already sent (subscriptions.ts).
 */
export class ViewerFanout {
  private readonly viewers = new Set<DeviceConnection>();
  private readonly backlog: SessionEvent[] = [];
  /** The viewers of the event at the head of the backlog not yet served, and where the next is. */
  private pending: DeviceConnection[] = [];
  private next = 0;
  private scheduled = false;

  constructor(
    private readonly clock: Clock,
    private readonly stats: HostCounters,
  ) {}

  add(connection: DeviceConnection): void {
    this.viewers.add(connection);
  }

  delete(connection: DeviceConnection): boolean {
    return this.viewers.delete(connection);
  }

  /** Viewers connected through a link now. */
  count(linkId: string): number {
    let n = 0;
    for (const c of this.viewers) if (c.viewer?.id === linkId) n++;
    return n;
  }

  /** Every viewer connection, or those of one link. */
  list(linkId?: string): DeviceConnection[] {
    return [...this.viewers].filter((c) => linkId === undefined || c.viewer?.id === linkId);
  }

  deliver(event: TetherEvent): void {
    if (!isSessionEvent(event) || !this.watched(event.sessionId)) return;
    if (this.backlog.length >= MAX_VIEWER_BACKLOG) return this.cutAll();
    this.backlog.push(event);
    this.schedule();
  }

  private watched(sessionId: string): boolean {
    for (const c of this.viewers) if (c.viewer?.sessionId === sessionId) return true;
    return false;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.clock.setTimeout(() => this.drain(), 0);
  }

  /** Serves VIEWER_SLICE deliveries of the backlog at most, then gives the turn back. */
  private drain(): void {
    this.scheduled = false;
    let served = 0;
    while (this.backlog.length > 0) {
      const event = this.backlog[0]!;
      if (this.next === 0 && this.pending.length === 0) {
        this.pending = [...this.viewers].filter((c) => c.viewer?.sessionId === event.sessionId);
      }
      while (this.next < this.pending.length) {
        if (served++ === VIEWER_SLICE) return this.schedule();
        const viewer = this.pending[this.next++]!;
        if ((viewer.transport.path?.pressure() ?? 0) <= MAX_VIEWER_PATH_PRESSURE) viewer.deliver(event);
        else {
          this.stats.add('viewer:behind');
          viewer.sendBye('slow-consumer', 'the way to the host is busy; reconnect to resume', CloseCode.SlowConsumer);
        }
      }
      this.backlog.shift();
      this.pending = [];
      this.next = 0;
    }
  }

  private cutAll(): void {
    this.stats.add('viewer:behind');
    this.backlog.length = 0;
    this.pending = [];
    this.next = 0;
    for (const c of [...this.viewers])
      c.sendBye('slow-consumer', 'the host is busy; reconnect to resume', CloseCode.SlowConsumer);
  }
}
