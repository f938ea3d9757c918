import { visibleText } from './visible-text.js';

/**
 * The plain words for what an "allow commands starting with …" rule allows, wherever one is offered
 * or recorded (the CLI, the transcript, the app): the prefix alone, or followed only by plain words
 * that stay in the session folder. Those words still mean whatever the program makes of them
 * (`npm run NAME` runs any script of that name), which is why the text says so.
 */
export function prefixRuleText(prefix: string): string {
  return `“${visibleText(prefix)}” alone or followed only by plain words (no options, no shell syntax, no host or address, nothing outside the session folder or in a private folder; the program decides what they do)`;
}
