import type { ApprovalPush, PushPayload, ResolvedPush, WaitingPush } from './push-payload.js';

/**
 * What a notification says for each push, in one place: the service worker shows it (the app's
 * notification-view.ts), and the host writes it into a declarative message, which the browser
 * shows without the worker (declarative-push.ts). Every text in a payload is already masked and
 * escaped by the host; `hostName` must be escaped by whoever passes it.
 */

/** Where an approval runs, as its notification says it: the computer, or a machine through it. */
export function approvalPlace(push: Pick<ApprovalPush, 'place'>, hostName: string): string {
  return push.place === 'local' ? hostName : `${push.place} (via ${hostName})`;
}

/** Where it runs is in the title, the part every lock screen shows. */
export function approvalTitle(push: Pick<ApprovalPush, 'kind' | 'place'>, hostName: string): string {
  return `${verb(push.kind)} on ${approvalPlace(push, hostName)}?`;
}

/** The action's line, then the session and where: the body's first two lines. */
export function approvalLines(push: ApprovalPush, hostName: string): string[] {
  return [push.summary, `${push.title} · ${approvalPlace(push, hostName)}`];
}

/** The last line of an approval that can only be tapped (no buttons: an iPhone, a declarative message). */
export const TAP_TO_ANSWER = 'Tap to see it whole and answer.';
/** The last line of one whose Approve is held back (masked, or the lock-screen policy). */
export const OPEN_TO_APPROVE = 'Open the app to approve this one.';

function verb(kind: ApprovalPush['kind']): string {
  switch (kind) {
    case 'shell':
      return 'Run a command';
    case 'write':
      return 'Write a file';
    case 'edit':
      return 'Edit a file';
    case 'mcp':
      return 'Use a tool';
    case 'trust':
      return "Trust a folder's configuration";
    case 'plan':
      return 'Accept a plan';
  }
}

export function resolvedTitle(hostName: string): string {
  return `Answered on ${hostName}`;
}

export function resolvedBody(push: Pick<ResolvedPush, 'status' | 'by'>): string {
  const by = push.by ? ` by ${push.by}` : '';
  return push.status === 'allowed' ? `Approved${by}.` : push.status === 'denied' ? `Denied${by}.` : 'No longer asked.';
}

export function waitingTitle(push: Pick<WaitingPush, 'reason' | 'title'>): string {
  return push.reason === 'question'
    ? `Waiting for you: ${push.title}`
    : push.reason === 'budget'
      ? `Budget reached: ${push.title}`
      : `Stopped at its limit: ${push.title}`;
}

export function waitingBody(push: Pick<WaitingPush, 'text'>, hostName: string): string {
  return `${push.text}\nOn ${hostName}. Tap to open it.`;
}

type RunPush = Extract<PushPayload, { type: 'run' }>;

export function runTitle(push: Pick<RunPush, 'status' | 'title'>): string {
  return push.status === 'done' ? `Finished: ${push.title}` : `Failed: ${push.title}`;
}

export function runBody(push: Pick<RunPush, 'status' | 'text'>, hostName: string): string {
  return push.status === 'done' ? `On ${hostName}.` : `${push.text}\nOn ${hostName}.`;
}
