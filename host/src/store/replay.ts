import type { SessionEvent } from '@tether/shared-protocol';
import type { EventLog } from './event-log.js';

/** Events per page of a replay: small enough that one page never floods a slow reader. */
export const REPLAY_PAGE = 500;

/**
 * Sends a session's events after `after`, a page at a time (waiting for `ready` between pages,
 * e.g. for a socket to drain), then calls `follow` in the same synchronous step as the read that
 * found nothing more: every event appended later reaches the live path, none is lost or doubled.
 * Returns false when `stillWanted` says the reader went away.
 */
export async function replayThenFollow(
  log: EventLog,
  sessionId: string,
  after: number,
  send: (event: SessionEvent) => void,
  follow: () => void,
  ready: () => Promise<void>,
  stillWanted: () => boolean = () => true,
): Promise<boolean> {
  let cursor = after;
  for (;;) {
    if (!stillWanted()) return false;
    const page = log.read(sessionId, cursor, REPLAY_PAGE);
    for (const event of page) send(event);
    if (page.length > 0) cursor = page[page.length - 1]!.seq;
    if (page.length < REPLAY_PAGE && log.lastSeq(sessionId) <= cursor) {
      follow();
      return true;
    }
    await ready();
  }
}
