import type { SessionEvent } from '@tether/shared-protocol';
import type { EventLog } from './event-log.js';

/** Events per page of a replay: small enough that one page never floods a slow reader. */
export const REPLAY_PAGE = 500;

/**
 * Sends a session's events after `after`, a page at a time, then calls `follow` in the same
 * synchronous step as the read that found nothing more: every event appended later reaches the
 * live path, none is lost or doubled. `send` returns false when the reader's buffer is full; the
 * replay then waits for `ready` (a socket draining) and goes on from the next event, so a page of
 * large events never piles up. Returns false when `stillWanted` says the reader went away.
 */
export async function replayThenFollow(
  log: EventLog,
  sessionId: string,
  after: number,
  send: (event: SessionEvent) => boolean,
  follow: () => void,
  ready: () => Promise<void>,
  stillWanted: () => boolean = () => true,
): Promise<boolean> {
  let cursor = after;
  for (;;) {
    if (!stillWanted()) return false;
    const page = log.page(sessionId, cursor, REPLAY_PAGE);
    let full = false;
    for (const event of page.events) {
      cursor = event.seq;
      if (!send(event)) {
        full = true;
        break;
      }
    }
    // Past rows that did not decode, too, so a damaged row is skipped rather than read forever.
    if (!full) cursor = Math.max(cursor, page.lastSeq);
    if (!full && page.rows < REPLAY_PAGE && log.lastSeq(sessionId) <= cursor) {
      follow();
      return true;
    }
    await ready();
  }
}
