import type { Clock, SessionEvent, SessionEventBody } from '@tether/shared-protocol';
import { decodeEvent, isSessionEvent } from '@tether/shared-protocol';
import type { Db } from './database.js';

type Listener = (event: SessionEvent) => void;
type AppendBody = SessionEventBody | ((seq: number) => SessionEventBody);

/**
 * The append-only event log: the source of truth for every transcript and for resume.
 *
 * Each session's events are numbered from 1 without gaps. `append` commits before it returns and
 * then tells listeners synchronously, on the same thread: a reader that replays up to `lastSeq`
 * and then subscribes, without yielding in between, sees every event exactly once.
 */
export class EventLog {
  private readonly listeners = new Map<Listener, string>();
  /** Listeners that threw, by the name they subscribed with: a bug, counted, never fatal. */
  readonly listenerFailures = new Map<string, number>();
  /** Last sequence number per session: this log is the only writer, so it need not be read back. */
  private readonly last = new Map<string, number>();
  private readonly insert;
  private readonly selectLast;
  private readonly selectAfter;
  private readonly selectBefore;
  private readonly selectTypeBefore;
  /** Rows that could not be decoded (a damaged database): skipped, never fatal. */
  corruptRows = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    this.insert = db.prepare('INSERT INTO events (session_id, seq, type, payload, at) VALUES (?, ?, ?, ?, ?)');
    // Undefined for no such session, null for one with no events yet.
    this.selectLast = db
      .prepare(
        'SELECT (SELECT seq FROM events WHERE session_id = sessions.id ORDER BY seq DESC LIMIT 1) FROM sessions WHERE id = ?',
      )
      .pluck();
    this.selectAfter = db.prepare(
      'SELECT seq, type, payload, at FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.selectBefore = db.prepare(
      'SELECT seq, type, payload, at FROM events WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
    );
    this.selectTypeBefore = db.prepare(
      'SELECT seq, type, payload, at FROM events WHERE session_id = ? AND seq < ? AND type = ? ORDER BY seq DESC LIMIT ?',
    );
  }

  /**
   * Appends one event. `build` receives the sequence number the event will get, for events whose
   * payload mentions it (a session summary carries its own `lastSeq`).
   */
  append(sessionId: string, body: AppendBody): SessionEvent {
    const at = this.clock.now();
    const seq = this.lastSeq(sessionId, true) + 1;
    const resolved = typeof body === 'function' ? body(seq) : body;
    const { type, ...payload } = resolved;
    // One row, its own transaction: the session's last seq and last change are read from it.
    this.insert.run(sessionId, seq, type, JSON.stringify(payload), at);
    this.last.set(sessionId, seq);
    const event: SessionEvent = { ...resolved, sessionId, seq, at };
    // The event is stored: a listener that throws must not fail the append (or the run behind it).
    for (const [listener, name] of this.listeners) {
      try {
        listener(event);
      } catch {
        this.listenerFailures.set(name, (this.listenerFailures.get(name) ?? 0) + 1);
      }
    }
    return event;
  }

  /** Events with `seq > after`, oldest first, at most `limit`. */
  read(sessionId: string, after: number, limit = 1000): SessionEvent[] {
    return this.page(sessionId, after, limit).events;
  }

  /** Every event of a session, a page at a time. */
  *readAll(sessionId: string, pageSize = 1000): Generator<SessionEvent> {
    let after = 0;
    for (;;) {
      const page = this.page(sessionId, after, pageSize);
      yield* page.events;
      if (page.rows < pageSize) return;
      after = page.lastSeq;
    }
  }

  /** A page of rows after `after`: its decodable events, how many rows it read, and the last row's seq. */
  page(sessionId: string, after: number, limit: number): { events: SessionEvent[]; rows: number; lastSeq: number } {
    const rows = this.selectAfter.all(sessionId, after, limit) as {
      seq: number;
      type: string;
      payload: string;
      at: number;
    }[];
    const events: SessionEvent[] = [];
    for (const row of rows) {
      const event = decodeRow(sessionId, row);
      if (event) events.push(event);
      else this.corruptRows++;
    }
    return { events, rows: rows.length, lastSeq: rows.length > 0 ? rows[rows.length - 1]!.seq : after };
  }

  /**
   * The newest rows before `before`, at most `limit`, returned oldest first, with the number of
   * rows read (damaged ones are skipped but counted) and the first row's seq (`before` if none).
   */
  pageBefore(
    sessionId: string,
    before: number,
    limit: number,
  ): { events: SessionEvent[]; rows: number; firstSeq: number } {
    const rows = (this.selectBefore.all(sessionId, before, limit) as Row[]).reverse();
    return { events: this.decodeRows(sessionId, rows), rows: rows.length, firstSeq: rows[0]?.seq ?? before };
  }

  /** Events of one type before `before`, newest first, at most `limit` (a scan of the session's rows). */
  ofTypeBefore(sessionId: string, type: string, before: number, limit: number): SessionEvent[] {
    return this.decodeRows(sessionId, this.selectTypeBefore.all(sessionId, before, type, limit) as Row[]);
  }

  private decodeRows(sessionId: string, rows: readonly Row[]): SessionEvent[] {
    const events: SessionEvent[] = [];
    for (const row of rows) {
      const event = decodeRow(sessionId, row);
      if (event) events.push(event);
      else this.corruptRows++;
    }
    return events;
  }

  lastSeq(sessionId: string, mustExist = false): number {
    const cached = this.last.get(sessionId);
    if (cached !== undefined) return cached;
    const stored = this.selectLast.get(sessionId) as number | null | undefined;
    if (stored === undefined) {
      if (mustExist) throw new Error(`append to unknown session ${sessionId}`);
      return 0;
    }
    this.last.set(sessionId, stored ?? 0);
    return stored ?? 0;
  }

  /** Calls `listener` after every append; `name` says who it is when it fails. */
  subscribe(name: string, listener: Listener): () => void {
    this.listeners.set(listener, name);
    return () => this.listeners.delete(listener);
  }
}

interface Row {
  seq: number;
  type: string;
  payload: string;
  at: number;
}

/** A stored row as the event it was, checked against the event schemas; undefined if damaged. */
function decodeRow(sessionId: string, row: Row): SessionEvent | undefined {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    return undefined;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const decoded = decodeEvent({ ...payload, type: row.type, sessionId, seq: row.seq, at: row.at });
  return decoded.kind === 'event' && isSessionEvent(decoded.event) ? decoded.event : undefined;
}
