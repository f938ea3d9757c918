import type { NotifyLevel, SessionEvent } from '@tether/shared-protocol';
import { MAX_HISTORY_BYTES, MAX_HISTORY_PAGE, fail, ok } from '@tether/shared-protocol';
import type { SessionManager } from '../sessions/session-manager.js';
import type { EventLog } from '../store/event-log.js';

/** Events in a history page when the device names no limit. */
export const DEFAULT_HISTORY_PAGE = 500;
/** Changes in one answer when the device names no limit. */
export const DEFAULT_CHANGES_PAGE = 50;

export interface HistoryDeps {
  sessions: Pick<SessionManager, 'get' | 'setMaxModelCalls' | 'setNotify'>;
  log: Pick<EventLog, 'pageBefore' | 'ofTypeBefore' | 'lastSeq'>;
}

/**
 * Keeps the newest events of a page (given oldest first) whose JSON fits in `maxBytes`, so an
 * answer always fits a frame; at least one event, since a single event always fits one.
 */
export function newestWithin(events: readonly SessionEvent[], maxBytes: number): SessionEvent[] {
  let bytes = 0;
  let start = events.length;
  while (start > 0) {
    const size = JSON.stringify(events[start - 1]).length;
    if (start < events.length && bytes + size > maxBytes) break;
    bytes += size;
    start--;
  }
  return events.slice(start);
}

/** A page of a session's log: the session, the seq to read below, how many at most. */
interface PageParams {
  id: string;
  before?: number | undefined;
  limit?: number | undefined;
}

/**
 * `sessions.history`, `sessions.changes` and `sessions.configure`: reading a long session in
 * pages, newest first, and setting its model-call limit. Shared by the device and control surfaces.
 */
export function historyHandlers(deps: HistoryDeps) {
  return {
    'sessions.history': ({ id, before, limit }: PageParams) => {
      if (!deps.sessions.get(id)) return fail('not-found', `no session ${id}`);
      const lastSeq = deps.log.lastSeq(id);
      const end = Math.min(before ?? lastSeq + 1, lastSeq + 1);
      const page = deps.log.pageBefore(id, end, Math.min(limit ?? DEFAULT_HISTORY_PAGE, MAX_HISTORY_PAGE));
      const events = newestWithin(page.events, MAX_HISTORY_BYTES);
      // Cut for size: the page then starts at its first kept event. Otherwise it covers every row
      // read, damaged ones included (they are skipped, not asked for again), down to 0 at the start.
      const cut = events.length < page.events.length;
      const after = cut ? events[0]!.seq - 1 : page.rows < (limit ?? DEFAULT_HISTORY_PAGE) ? 0 : page.firstSeq - 1;
      return ok({ events, after, lastSeq });
    },
    'sessions.changes': ({ id, before, limit }: PageParams) => {
      if (!deps.sessions.get(id)) return fail('not-found', `no session ${id}`);
      const want = limit ?? DEFAULT_CHANGES_PAGE;
      // One more than asked says whether more remain.
      const found = deps.log.ofTypeBefore(id, 'file.changed', before ?? Number.MAX_SAFE_INTEGER, want + 1);
      const page = found.slice(0, want);
      // Newest first: keep from the front while it fits.
      const kept = newestWithin([...page].reverse(), MAX_HISTORY_BYTES).reverse();
      return ok({ events: kept, more: found.length > kept.length });
    },
    'sessions.configure': ({
      id,
      maxModelCalls,
      notify,
    }: {
      id: string;
      maxModelCalls?: number | null | undefined;
      notify?: NotifyLevel | undefined;
    }) => {
      if (!deps.sessions.get(id)) return fail('not-found', `no session ${id}`);
      if (notify !== undefined) {
        const changed = deps.sessions.setNotify(id, notify);
        if (!changed.ok) return changed;
      }
      if (maxModelCalls === undefined) return ok({ session: deps.sessions.get(id)! });
      const changed = deps.sessions.setMaxModelCalls(id, maxModelCalls);
      return changed.ok ? ok({ session: changed.value }) : changed;
    },
  };
}
