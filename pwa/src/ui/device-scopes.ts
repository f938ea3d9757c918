import type { Scope } from '@tether/shared-protocol';

/**
 * Why this device's message box is off, in words that say what it may do instead: a device paired
 * with `watch` and `approve` answers approvals, and is told so. Undefined when it may send.
 */
export function messageBoxOffReason(scopes: readonly Scope[]): string | undefined {
  if (scopes.includes('chat')) return undefined;
  return scopes.includes('approve')
    ? 'This device may watch and answer approvals, not send messages'
    : 'This device may only watch';
}
