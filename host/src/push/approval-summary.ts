import { MAX_PUSH_SUMMARY, visibleText } from '@tether/shared-protocol';
import { maskSecrets } from './secret-mask.js';

/** Characters of a tool's name, a machine's or a device's label in a push. */
export const MAX_PUSH_LABEL = 128;

export interface ActionSummary {
  /** One line for a notification: hidden characters as marks, cut, and how much more there is. */
  text: string;
  /** True when `text` is the whole action: one line, nothing cut. */
  shownWhole: boolean;
}

/**
 * The action in one line for a notification. A notification is plain text, but a bidi override or
 * a zero-width character would still change what it seems to say, so every hidden character is a
 * visible mark (`visibleText`). A long action never passes for a short one: a cut line ends with
 * `…`, and an action of several lines says how many more there are.
 */
export function summariseAction(action: string): ActionSummary {
  // Trailing newlines change nothing a command does. Trimmed by hand: `/\n+$/` is quadratic on a
  // long run of newlines followed by anything else, and the action is hostile.
  let end = action.length;
  while (end > 0 && action.charCodeAt(end - 1) === 0x0a) end--;
  const lines = action.slice(0, end).split('\n');
  const whole = visibleText(lines[0] ?? '');
  const line = visibleText(lines[0] ?? '', { maxLength: MAX_PUSH_SUMMARY });
  const more = lines.length - 1;
  const cut = line !== whole;
  const note = more > 0 ? ` (+${more} more line${more === 1 ? '' : 's'})` : '';
  return { text: `${line}${note}`, shownWhole: !cut && more === 0 };
}

/**
 * A text field of a push (a title, a label, a question): what looks secret masked first, then one
 * line with hidden characters shown, cut to `max`. Every text a push carries goes through here or
 * through lockScreenView (the action), so nothing reaches a lock screen unmasked.
 */
export function pushLine(text: string, max: number): { text: string; masked: boolean } {
  const masked = maskSecrets(text);
  return { text: visibleText(masked.text, { maxLength: max }), masked: masked.masked };
}

/** A longer text of a push (a question, an error): masked, its first line, cut, with how much more there is. */
export function pushSummary(text: string): string {
  return summariseAction(maskSecrets(text).text).text;
}
