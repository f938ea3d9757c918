import type { SessionEventBody } from '@tether/shared-protocol';
import { MAX_DIFF_EVENT } from '@tether/shared-protocol';
import type { FileChange } from '../../tools/tool.js';
import { unifiedDiff } from '../../tools/unified-diff.js';

/** Marks a diff cut at MAX_DIFF_EVENT (the whole change is in the file; the event stays a page). */
const CUT_MARK = '\n… [diff cut]';

/**
 * The `file.changed` event for a write a tool made: the unified diff of the text before and after,
 * the same diff an approval shows, cut (and marked) past MAX_DIFF_EVENT characters.
 */
export function fileChangedEvent(
  toolCallId: string,
  change: FileChange,
): Extract<SessionEventBody, { type: 'file.changed' }> {
  const whole = unifiedDiff(change.before, change.after, change.path);
  const truncated = whole.length > MAX_DIFF_EVENT;
  return {
    type: 'file.changed',
    toolCallId,
    path: change.path.slice(0, 4096),
    change: change.created ? 'created' : 'modified',
    diff: truncated ? whole.slice(0, MAX_DIFF_EVENT - CUT_MARK.length) + CUT_MARK : whole,
    truncated,
  };
}
