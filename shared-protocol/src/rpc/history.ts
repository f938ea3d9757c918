import * as v from 'valibot';
import { Id, Seq } from './common.js';
import { ModelCallLimit } from './activity.js';
import { NotifyLevelSchema } from './notify-level.js';

/**
 * Reading a long session in pages: older events on demand (`sessions.history`), the files it
 * changed (`sessions.changes`), and its per-session settings (`sessions.configure`).
 */

/** Events in one history page at most: a screenful many times over, and well under a frame. */
export const MAX_HISTORY_PAGE = 1000;
/** Bytes of events one history or changes answer carries at most (JSON), under the 1 MiB frame. */
export const MAX_HISTORY_BYTES = 768 * 1024;
/** Events a watch may be asked to replay from the tail at most (`tail`). */
export const MAX_WATCH_TAIL = 5000;
/** `file.changed` events in one changes answer at most. */
export const MAX_CHANGES_PAGE = 200;

const PageLimit = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_HISTORY_PAGE));

export const HistoryParams = v.object({
  id: Id,
  /** Events with a sequence number below this; the newest events when absent. */
  before: v.optional(Seq),
  limit: v.optional(PageLimit),
});

export const HistoryResult = v.object({
  /** Oldest first. Decoded by the client with decodeEvent: an unknown type is skipped. */
  events: v.array(v.unknown()),
  /** The page covers every sequence number in (after, before): 0 when it reaches the start. */
  after: Seq,
  /** The session's newest sequence number when the page was read. */
  lastSeq: Seq,
});

export const ChangesParams = v.object({
  id: Id,
  /** Changes logged before this sequence number; the newest when absent. */
  before: v.optional(Seq),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_CHANGES_PAGE))),
});

export const ChangesResult = v.object({
  /** `file.changed` events, newest first, decoded by the client with decodeEvent. */
  events: v.array(v.unknown()),
  /** Whether older changes remain (ask again with `before` = the oldest one's seq). */
  more: v.boolean(),
});

export const ConfigureSessionParams = v.object({
  id: Id,
  /** The session's own model-call limit per run; null goes back to the host's default. */
  maxModelCalls: v.optional(v.nullable(ModelCallLimit)),
  /** When devices are notified of this session (push). */
  notify: v.optional(NotifyLevelSchema),
});
