import type { Approval } from '@tether/shared-protocol';
import { prefixRuleText, visibleText } from '@tether/shared-protocol';

/**
 * How approvals look in a terminal. The action is the model's text and hostile: every line is
 * shown, escaped (`visibleText`), behind a gutter, and numbered when there is more than one, so
 * no line can hide another or pass for the first.
 */

/**
 * Lines of an action `tether start` prints in full. Past this it prints the count and where to read
 * the whole (`tether approvals ID`), and no answer line: nobody should allow what scrolled past.
 * 20 lines leave room for the prompt on a 24-line terminal.
 */
export const START_ACTION_MAX_LINES = 20;
/** The same in characters: a single 4,000-character line wraps past a screen too. */
export const START_ACTION_MAX_CHARS = 2000;

export function actionLineCount(action: string): number {
  return action.split('\n').length;
}

/** `N lines` for a multi-line action, empty for one line. */
export function linesNote(action: string): string {
  const n = actionLineCount(action);
  return n > 1 ? `${n} lines` : '';
}

/** Every line of the action, escaped, behind `indent` and a gutter (numbered when several). */
export function actionBlock(action: string, indent = ''): string {
  const lines = action.split('\n');
  const width = String(lines.length).length;
  return lines
    .map((line, i) => {
      const number = lines.length > 1 ? `${String(i + 1).padStart(width)} ` : '';
      return `${indent}${number}│ ${visibleText(line)}`;
    })
    .join('\n');
}

/** Where an action runs, in words: this computer, or a machine by its name (escaped). */
export function placeText(place: string): string {
  return place === 'local' ? 'this computer' : `machine ${visibleText(place)}`;
}

/**
 * The header line: id, kind, where it runs, session and folder, and the line count when there are
 * several. Where it runs comes before the folder: the same path means another thing on a machine.
 */
export function approvalHeader(a: Pick<Approval, 'id' | 'kind' | 'sessionId' | 'cwd' | 'action' | 'place'>): string {
  const note = linesNote(a.action);
  return `approval ${a.id} (${a.kind}) on ${placeText(a.place)}, in session ${a.sessionId}, folder ${visibleText(a.cwd)}${note ? ` — ${note}` : ''}`;
}

/** What `tether start` prints when an approval is raised. */
export function startApprovalNotice(a: Approval): string {
  const lines = actionLineCount(a.action);
  if (lines > START_ACTION_MAX_LINES || a.action.length > START_ACTION_MAX_CHARS) {
    const size = lines > 1 ? `${lines} lines` : `${a.action.length} characters`;
    return `${approvalHeader(a)}\n  ${size}: too long to show here. Read all of it, then answer: tether approvals ${a.id}\n`;
  }
  return `${approvalHeader(a)}\n${actionBlock(a.action, '  ')}\n  answer: tether approve ${a.id} allow|deny\n`;
}

/** How a resolved approval ended, for a transcript: who answered, what a prefix rule allows from now on. */
export function approvalOutcome(a: Approval): string {
  const who = a.answeredBy ? ` by ${visibleText(a.answeredBy.label)}` : '';
  const note = a.note ? `: ${visibleText(a.note)}` : '';
  const what = a.status === 'allowed' ? `allowed (${a.decision})` : a.status;
  const rule = a.prefix !== undefined ? `; from now on ${prefixRuleText(a.prefix)} runs without asking` : '';
  return `${what}${who}${note}${rule}`;
}
