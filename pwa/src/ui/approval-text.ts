import type { Approval } from '@tether/shared-protocol';

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
  }
}

/** How a resolved approval ended and who answered ("Allowed once by iPhone · Safari"). */
export function approvalOutcome(approval: Approval, myDeviceId: string | undefined): string {
  const what =
    approval.status === 'allowed'
      ? approval.decision === 'allow-session'
        ? 'Allowed for this session'
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
