import type { Approval, Decision, VisibleSegment } from '@tether/shared-protocol';
import { prefixRuleText, visibleSegments } from '@tether/shared-protocol';

/** An action as the card shows it: its lines, each as text and marks for hidden characters. */
export interface ActionView {
  lines: VisibleSegment[][];
  /** Hidden characters shown as marks (controls, bidi, zero-width…), for the note under the action. */
  hidden: number;
}

/**
 * Splits the action into lines and shows every character that could hide or reorder text as a
 * mark (`⟨U+202E⟩`), with the classification the host's terminal uses. The card renders the
 * segments as text nodes: never as markup.
 */
export function actionView(action: string): ActionView {
  const lines = action.split('\n').map((line) => visibleSegments(line));
  const hidden = lines.reduce((n, line) => n + line.filter((s) => s.kind === 'mark').length, 0);
  return { lines, hidden };
}

/** "3 lines" for a multi-line action, so a line that looks like the first cannot pass for all of it. */
export function linesBadge(view: ActionView): string | undefined {
  return view.lines.length > 1 ? `${view.lines.length} lines` : undefined;
}

/** The card's question, by the kind of action. */
export function approvalQuestion(approval: Pick<Approval, 'kind' | 'tool'>): string {
  switch (approval.kind) {
    case 'shell':
      return 'Run this command?';
    case 'write':
      return 'Write this file?';
    case 'edit':
      return 'Make this edit?';
    case 'mcp':
      return `Use ${approval.tool}?`;
    case 'trust':
      return "Trust this folder's own agent configuration?";
    case 'plan':
      return 'Accept this plan?';
  }
}

/** One answer the card offers: its decision, its words, and how it looks. */
export interface AnswerChoice {
  decision: Decision;
  label: string;
  style?: 'primary' | 'danger';
  /** More words, for the button's title. */
  title?: string;
}

/**
 * The answers the card offers, in order. A trust approval's are about the folder, not a command:
 * this session only, from now on (until it changes), or not at all; none is "for the session" as a
 * rule would be, and a note has no one to go to.
 */
export function approvalAnswers(approval: Pick<Approval, 'kind' | 'always'>): AnswerChoice[] {
  if (approval.kind === 'plan') {
    return [
      { decision: 'allow-once', label: 'Accept plan', style: 'primary' },
      { decision: 'deny', label: 'Keep planning', style: 'danger' },
    ];
  }
  if (approval.kind === 'trust') {
    return [
      { decision: 'allow-once', label: 'Trust for this session', style: 'primary' },
      { decision: 'allow-always', label: 'Trust from now on', title: approval.always ?? 'until it changes' },
      { decision: 'deny', label: "Don't trust", style: 'danger' },
    ];
  }
  return [
    { decision: 'allow-once', label: 'Allow once', style: 'primary' },
    { decision: 'allow-session', label: 'Allow for session' },
    ...(approval.always !== undefined
      ? [
          {
            decision: 'allow-always' as const,
            label: 'Always, for every session of this agent',
            title: `The agent's own answer: ${approval.always}`,
          },
        ]
      : []),
    { decision: 'deny', label: 'Deny', style: 'danger' },
  ];
}

/** How a resolved approval ended and who answered ("Allowed once by iPhone · Safari"). */
export function approvalOutcome(approval: Approval, myDeviceId: string | undefined): string {
  const outcome = answeredOutcome(approval, myDeviceId);
  // A prefix rule allows more than the command shown: say what, wherever it is recorded.
  return approval.prefix !== undefined
    ? `${outcome}; from now on ${prefixRuleText(approval.prefix)} runs without asking`
    : outcome;
}

function answeredOutcome(approval: Approval, myDeviceId: string | undefined): string {
  const trust = approval.kind === 'trust';
  const plan = approval.kind === 'plan';
  const what =
    trust && approval.status === 'allowed'
      ? approval.decision === 'allow-always'
        ? 'Trusted from now on, until it changes'
        : 'Trusted for this session'
      : trust && approval.status === 'denied'
        ? 'Not trusted'
        : plan && approval.status === 'allowed'
          ? 'Plan accepted'
          : plan && approval.status === 'denied'
            ? 'Sent back to planning'
            : approval.status === 'allowed'
              ? approval.decision === 'allow-session'
                ? 'Allowed for this session'
                : approval.decision === 'allow-always'
                  ? 'Allowed always, for every session of this agent'
                  : 'Allowed once'
              : approval.status === 'denied'
                ? 'Denied'
                : approval.status === 'cancelled'
                  ? 'Cancelled'
                  : 'Waiting';
  const by = approval.answeredBy;
  if (!by) return what;
  if (by.kind === 'device')
    return `${what} ${by.id !== undefined && by.id === myDeviceId ? 'on this device' : `by ${by.label}`}`;
  if (by.kind === 'auto') return `${what} automatically`;
  return approval.status === 'cancelled' ? `${what} (${by.label})` : `${what} at the computer`;
}
