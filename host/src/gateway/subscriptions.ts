import type { SessionEvent, TetherEvent } from '@tether/shared-protocol';
import { isSessionEvent } from '@tether/shared-protocol';
import type { EventLog } from '../store/event-log.js';
import { replayThenFollow } from '../store/replay.js';
import type { Outbox } from '../streams/outbox.js';
import { HIGH_WATER_BYTES, LOW_WATER_BYTES } from '../streams/outbox.js';
import type { Subscription } from '../streams/subscription.js';

/** The route an event travels on: the key of the subscription that receives it. */
export function routeOf(event: TetherEvent): string {
  if (isSessionEvent(event)) return sessionRoute(event.sessionId);
  switch (event.type) {
    case 'machine.status':
    case 'awake.status':
      return HOST_ROUTE;
    case 'terminal.output':
    case 'terminal.exit':
    case 'terminal.screen':
    case 'terminal.detached':
      return `terminal:${event.terminalId}`;
    case 'watch.skipped':
      return sessionRoute(event.sessionId);
  }
}

export const sessionRoute = (sessionId: string) => `session:${sessionId}`;
/** `session.updated` of sessions the device does not watch: the live session list. */
export const SESSION_LIST_ROUTE = 'sessions';
/** Host events every watching device sees (machine status, keeping the computer awake). */
export const HOST_ROUTE = 'host';

/**
 * A watched session: its events after `after` replayed a page at a time, paced by the outbox,
 * then live. Its guarantee is the strongest: every event, in order, once; so a device too far
 * behind is cut off as a whole and resumes from its last sequence number, never skipped ahead.
 *
 * With `tail`, a device coming back after a long time asks for only the newest events: when more
 * than `tail` came after `after`, a `watch.skipped` naming the range left out goes first, in the
 * same synchronous step as the read of the log's end, and the replay starts after it. The device
 * reads the skipped range as history pages; nothing is lost, and nothing is sent twice.
 *
 * `send` sends one event (a share link's viewer is sent it masked, encoded once for all viewers).
 * Live events may come later than the replay read them (a viewer's are fanned out after the
 * devices'): one at or below the last sequence number sent is dropped, never sent twice.
 */
export class SessionWatch implements Subscription {
  readonly key: string;
  private live = false;
  private ended = false;
  private sent: number;

  constructor(
    private readonly log: EventLog,
    readonly sessionId: string,
    after: number,
    private readonly outbox: Outbox,
    tail?: number,
    private readonly send: (event: SessionEvent) => void = (event) => outbox.send({ t: 'evt', event }),
  ) {
    this.key = sessionRoute(sessionId);
    let from = after;
    const last = log.lastSeq(sessionId);
    if (tail !== undefined && last - after > tail) {
      from = last - tail;
      outbox.send({ t: 'evt', event: { type: 'watch.skipped', sessionId, after, to: from } });
    }
    this.sent = from;
    void replayThenFollow(
      log,
      sessionId,
      from,
      (event) => {
        this.sent = event.seq;
        this.send(event);
        return outbox.buffered() < LOW_WATER_BYTES;
      },
      () => (this.live = true),
      () => outbox.drained(),
      () => !this.ended && !outbox.closed,
    );
  }

  deliver(event: TetherEvent): void {
    // While replaying, the replay itself will reach this event: sending it now would jump ahead.
    if (this.ended || !this.live || !isSessionEvent(event) || event.seq <= this.sent) return;
    if (this.outbox.buffered() > HIGH_WATER_BYTES) return this.outbox.cutOff();
    this.sent = event.seq;
    this.send(event);
  }

  end(): void {
    this.ended = true;
  }
}

/** Keys a latest-only subscription parks while the device is behind; past this it is cut off. */
export const MAX_PARKED_UPDATES = 1024;

/**
 * State-like updates (a session's summary in the list, a machine's status), where only the
 * newest of each thing matters. While the outbox is over the high-water mark, each thing's newest
 * update is parked (older ones replaced) and sent once it drains; nothing unbounded accumulates.
 */
export class LatestOnly implements Subscription {
  private readonly parked = new Map<string, TetherEvent>();
  private flushing = false;
  private ended = false;

  constructor(
    readonly key: string,
    private readonly outbox: Outbox,
    /** The thing an update is about: a later update with the same id replaces it. */
    private readonly idOf: (event: TetherEvent) => string,
    private readonly highWater = HIGH_WATER_BYTES,
  ) {}

  deliver(event: TetherEvent): void {
    if (this.ended) return;
    if (this.parked.size === 0 && this.outbox.buffered() <= this.highWater) {
      this.outbox.send({ t: 'evt', event });
      return;
    }
    const id = this.idOf(event);
    this.parked.delete(id);
    if (this.parked.size >= MAX_PARKED_UPDATES) return this.outbox.cutOff();
    this.parked.set(id, event);
    void this.flush();
  }

  end(): void {
    this.ended = true;
    this.parked.clear();
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.parked.size > 0 && !this.ended) {
        await this.outbox.drained();
        if (this.outbox.closed) return;
        // In the order they were last updated: the oldest-changed thing goes first.
        for (const [id, event] of this.parked) {
          this.parked.delete(id);
          this.outbox.send({ t: 'evt', event });
          if (this.outbox.buffered() >= LOW_WATER_BYTES) break;
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

/** The id a session-list or host update is about. */
export function updateSubject(event: TetherEvent): string {
  if (isSessionEvent(event)) return event.sessionId;
  if (event.type === 'machine.status') return `machine:${event.machine.id}`;
  return event.type;
}
