import type { Approval } from '@tether/shared-protocol';
import { MAX_PUSH_LABEL, pushLine, summariseAction } from './approval-summary.js';
import { maskSecrets } from './secret-mask.js';

/**
 * Which approvals may be approved from a notification without opening the app. Deny is always
 * offered (it only stops the agent); Approve is not when the action matches a pattern of the
 * policy, or when the notification could not show it whole (unless the config allows that).
 *
 * Patterns are a guard against a slip of the thumb, not a security boundary: a model can spell a
 * command in ways no list foresees. What protects is that the person sees what they approve.
 */

export interface LockScreenPolicy {
  denyOnly: readonly string[];
  approvePartial: boolean;
}

/**
 * True when `action` matches `pattern`: anywhere in it, ignoring case and runs of whitespace,
 * `*` standing for any text. Linear in the action's length (no regular expressions, so no pattern
 * can make a hostile action slow to check).
 */
export function matchesPattern(action: string, pattern: string): boolean {
  const text = ` ${normalise(action)} `;
  const parts = normalise(pattern).split('*');
  let at = 0;
  for (const part of parts) {
    if (part === '') continue;
    const found = text.indexOf(part, at);
    if (found < 0) return false;
    at = found + part.length;
  }
  return true;
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ');
}

/** `approve` when the notification may offer Approve; `deny-only` otherwise. */
export function lockScreenChoice(
  policy: LockScreenPolicy,
  action: string,
  shownWhole: boolean,
): 'approve' | 'deny-only' {
  if (!shownWhole && !policy.approvePartial) return 'deny-only';
  return policy.denyOnly.some((pattern) => matchesPattern(action, pattern)) ? 'deny-only' : 'approve';
}

/** What a lock screen may show of an approval, and whether it may be approved from there. */
export interface LockScreenView {
  /** The action in one line, masked and escaped (approval-summary.ts). */
  summary: string;
  tool: string;
  place: string;
  lockScreen: 'approve' | 'deny-only';
}

/**
 * An approval as a notification shows it: every text masked (secret-mask.ts), then one line. An
 * approval in which anything was masked is deny-only whatever the policy says: what would be
 * approved is not what is shown. The host refuses a one-shot Approve of a deny-only approval
 * (gateway/one-shot.ts), so hiding the button is not the only guard. A plan, and a folder's
 * configuration to trust, are accepted only where they are read whole: in the app.
 */
export function lockScreenView(
  approval: Pick<Approval, 'action' | 'tool' | 'place' | 'kind'>,
  policy: LockScreenPolicy,
): LockScreenView {
  const action = maskSecrets(approval.action);
  const tool = pushLine(approval.tool, MAX_PUSH_LABEL);
  const place = pushLine(approval.place, MAX_PUSH_LABEL);
  const summary = summariseAction(action.text);
  const masked = action.masked || tool.masked || place.masked;
  const readWhole = approval.kind === 'plan' || approval.kind === 'trust';
  return {
    summary: summary.text,
    tool: tool.text,
    place: place.text,
    lockScreen: masked || readWhole ? 'deny-only' : lockScreenChoice(policy, approval.action, summary.shownWhole),
  };
}
