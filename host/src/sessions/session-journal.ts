import type { Clock, SessionEventBody, SessionSummary, TimerHandle } from '@tether/shared-protocol';
import type { EventLog } from '../store/event-log.js';
import type { SessionRecord, SessionStore } from '../store/session-store.js';

const LAST_LINE_CHARS = 200;
/**
 * Milliseconds a change of a run's activity alone (a tool started, a model call) waits before it
 * is announced: a busy run then costs one `session.updated` every 2 s at most, not one per step,
 * and any other announcement in the meantime carries it anyway.
 */
export const ACTIVITY_ANNOUNCE_MS = 2000;

export interface SessionJournalDeps {
  sessions: SessionStore;
  log: EventLog;
  clock: Clock;
}

/** The fields a new session is stored with; the rest start empty. */
export type NewSession = Parameters<SessionStore['insert']>[0];

/**
 * Where every back-end writes what happens to a session: its record, its events, and the
 * `session.updated` announcements that follow each change. One writer, so a session's last line,
 * activity and summary stay consistent whichever back-end runs it.
 */
export class SessionJournal {
  /** Activity announcements waiting (ACTIVITY_ANNOUNCE_MS), at most one per session. */
  private readonly announceTimers = new Map<string, TimerHandle>();

  constructor(private readonly deps: SessionJournalDeps) {}

  insert(session: NewSession): SessionRecord {
    return this.deps.sessions.insert(session);
  }

  record(id: string): SessionRecord | undefined {
    return this.deps.sessions.get(id);
  }

  summary(id: string): SessionSummary | undefined {
    const record = this.deps.sessions.get(id);
    return record && this.deps.sessions.summary(record);
  }

  update(id: string, changes: Parameters<SessionStore['update']>[1]): void {
    this.deps.sessions.update(id, changes);
  }

  /** The terminal a session's program runs in, while the host holds it (undefined: none now). */
  terminal(id: string): string | undefined {
    return this.deps.sessions.terminals.get(id);
  }

  setTerminal(id: string, terminalId: string | undefined): void {
    if (terminalId === undefined) this.deps.sessions.terminals.delete(id);
    else this.deps.sessions.terminals.set(id, terminalId);
  }

  /** Sessions whose program runs in a terminal now, with that terminal. */
  terminals(): IterableIterator<[string, string]> {
    return this.deps.sessions.terminals.entries();
  }

  /** Appends an event and keeps the session's last line and activity current. */
  append(id: string, body: SessionEventBody): void {
    this.deps.log.append(id, body);
    if (body.type === 'tool.started') {
      this.deps.sessions.activity.change(id, { addToolCalls: 1, now: `${body.tool}: ${body.title.split('\n')[0]}` });
      this.announceSoon(id);
    } else if (body.type === 'approval.requested') {
      this.deps.sessions.activity.change(id, { now: `waiting for approval: ${body.approval.tool}` });
    }
    if (body.type === 'message') {
      const line = body.text.trim().split('\n').pop() ?? '';
      this.deps.sessions.update(id, { lastLine: line.slice(0, LAST_LINE_CHARS) });
      if (body.role === 'assistant') this.announce(id);
    }
  }

  /** Announces an activity change within ACTIVITY_ANNOUNCE_MS, once for all changes until then. */
  announceSoon(id: string): void {
    if (this.announceTimers.has(id)) return;
    this.announceTimers.set(
      id,
      this.deps.clock.setTimeout(() => {
        this.announceTimers.delete(id);
        this.announce(id);
      }, ACTIVITY_ANNOUNCE_MS),
    );
  }

  /** Appends a `session.updated` carrying the summary as of that very event. */
  announce(id: string): void {
    const pending = this.announceTimers.get(id);
    if (pending !== undefined) {
      this.deps.clock.clearTimeout(pending);
      this.announceTimers.delete(id);
    }
    const record = this.deps.sessions.get(id);
    if (!record) return;
    this.deps.log.append(id, (seq) => ({ type: 'session.updated', session: this.deps.sessions.summary(record, seq) }));
  }

  /** Drops the announcements still waiting (the host is stopping). */
  close(): void {
    for (const pending of this.announceTimers.values()) this.deps.clock.clearTimeout(pending);
    this.announceTimers.clear();
  }
}
