import { visibleText } from './visible-text.js';

/**
 * The plain words for what an "allow commands starting with …" rule allows, wherever one is offered
 * or recorded (the CLI, the transcript, the app): anything at all that starts with it. The host's
 * approval policy still asks again for chained commands and for arguments that run code, but a
 * person must not count on that list being complete.
 */
export function prefixRuleText(prefix: string): string {
  return `any command that starts with “${visibleText(prefix)}”, whatever follows it (chained commands and code-running options still ask)`;
}
