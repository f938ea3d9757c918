import type {
  ApprovalPush,
  PushPayload,
  ReceivedDeclarative,
  ResolvedPush,
  WaitingPush,
} from '@tether/shared-protocol';
import {
  OPEN_TO_APPROVE,
  TAP_TO_ANSWER,
  approvalLines,
  approvalTitle,
  resolvedBody,
  resolvedTitle,
  runBody,
  runTitle,
  visibleText,
  waitingBody,
  waitingTitle,
} from '@tether/shared-protocol';
import { formatRoute } from '../lib/route.js';

/**
 * What a notification says and offers, from a push payload: pure, so the service worker and its
 * tests share it. Notification text is plain text (never markup); the host already made hidden
 * characters visible in what it sent, and anything added here from local records is escaped too.
 */

export interface NotificationAction {
  action: 'approve' | 'deny' | 'open';
  title: string;
}

/** What the service worker keeps on a notification, read back when it is clicked. */
export interface NotificationData {
  hostId: string;
  sessionId: string;
  approvalId?: string;
  /** `approve`: Approve may be answered from here; `deny-only`: Deny and Open only. */
  lockScreen?: 'approve' | 'deny-only';
  /** The fragment a tap opens (`#/h/<host>/s/<session>`). */
  open: string;
  /** On the one "finished" notification: the runs folded into it, newest first. */
  finished?: FinishedRun[];
}

/** A finished run folded into the one "finished" notification. */
export interface FinishedRun {
  hostId: string;
  sessionId: string;
  /** The session's title as the host sent it (already one line, hidden characters shown). */
  title: string;
  hostName: string;
}

/** The one tag every finished run shares: a device shows one notification for all of them. */
export const FINISHED_TAG = 'runs:finished';
/** Finished runs remembered on that notification; the oldest beyond it are only counted as gone. */
export const MAX_FINISHED_SHOWN = 20;
/** Titles listed in its body; the rest are "and N more". */
const FINISHED_LISTED = 4;

export interface NotificationSpec {
  title: string;
  options: {
    body: string;
    tag: string;
    data: NotificationData;
    actions?: NotificationAction[];
    /** Stays until answered where the platform allows (desktop Chrome; ignored elsewhere). */
    requireInteraction?: boolean;
    /** No sound or buzz: an update to one already shown. */
    silent?: boolean;
    /** Buzz again when it replaces one with the same tag. */
    renotify?: boolean;
    icon?: string;
    badge?: string;
  };
}

export interface Platform {
  /** Whether notifications may carry action buttons (not on iOS / iPadOS Home Screen apps). */
  actions: boolean;
  icon?: string;
}

export type AnswerOutcome =
  | { kind: 'approved' }
  | { kind: 'denied' }
  | { kind: 'already-answered'; message: string }
  | { kind: 'failed'; message: string };

function openHash(hostId: string, sessionId: string): string {
  return formatRoute({ name: 'session', hostId, sessionId });
}

/** A tap on an approval (or on its answer) opens its card, answered or not. */
function cardHash(hostId: string, approvalId: string): string {
  return formatRoute({ name: 'approval', hostId, approvalId });
}

/** The words are shared with the host's declarative messages (shared-protocol notification-text.ts). */
export function approvalNotification(push: ApprovalPush, hostName: string, platform: Platform): NotificationSpec {
  const lines = approvalLines(push, hostName);
  const canApprove = push.lockScreen === 'approve';
  let actions: NotificationAction[] | undefined;
  if (platform.actions) {
    actions = canApprove
      ? [
          { action: 'approve', title: 'Approve' },
          { action: 'deny', title: 'Deny' },
        ]
      : [
          { action: 'deny', title: 'Deny' },
          { action: 'open', title: 'Open' },
        ];
    if (!canApprove) lines.push(OPEN_TO_APPROVE);
  } else {
    lines.push(TAP_TO_ANSWER);
  }
  return {
    // Where it runs is in the title, the part every lock screen shows: a machine, or this computer.
    title: approvalTitle(push, hostName),
    options: {
      body: lines.join('\n'),
      tag: push.approvalId,
      data: {
        hostId: push.hostId,
        sessionId: push.sessionId,
        approvalId: push.approvalId,
        lockScreen: push.lockScreen,
        open: cardHash(push.hostId, push.approvalId),
      },
      ...(actions ? { actions } : {}),
      requireInteraction: true,
      renotify: true,
      ...(platform.icon ? { icon: platform.icon, badge: platform.icon } : {}),
    },
  };
}

/** An approval answered elsewhere: replaces its notification, quietly; a tap opens its card. */
export function resolvedNotification(push: ResolvedPush, hostName: string, platform: Platform): NotificationSpec {
  const spec = quiet(
    push.approvalId,
    resolvedTitle(hostName),
    resolvedBody(push),
    push.hostId,
    push.sessionId,
    platform,
  );
  return {
    ...spec,
    options: { ...spec.options, data: { ...spec.options.data, open: cardHash(push.hostId, push.approvalId) } },
  };
}

/** What became of an answer given from the notification, in its place. */
export function outcomeNotification(
  data: NotificationData,
  hostName: string,
  outcome: AnswerOutcome,
  platform: Platform,
): NotificationSpec {
  const tag = data.approvalId ?? `run:${data.sessionId}`;
  switch (outcome.kind) {
    case 'approved':
      return quiet(tag, 'Approved', `On ${hostName}.`, data.hostId, data.sessionId, platform);
    case 'denied':
      return quiet(tag, 'Denied', `On ${hostName}.`, data.hostId, data.sessionId, platform);
    case 'already-answered':
      return quiet(tag, 'Already answered on another device', outcome.message, data.hostId, data.sessionId, platform);
    case 'failed':
      return {
        title: 'The answer did not reach the computer',
        options: {
          body: `${outcome.message}\nOpen to retry.`,
          tag,
          data: { ...data, open: data.open },
          requireInteraction: true,
          ...(platform.icon ? { icon: platform.icon, badge: platform.icon } : {}),
        },
      };
  }
}

/** A run failed: one notification per session, since each may need the person. */
export function runNotification(push: Extract<PushPayload, { type: 'run' }>, hostName: string, platform: Platform) {
  if (push.status === 'done') return finishedNotification([finishedRun(push, hostName)], platform);
  const body = runBody(push, hostName);
  return quiet(`run:${push.sessionId}`, runTitle(push), body, push.hostId, push.sessionId, platform, false);
}

export function finishedRun(push: Extract<PushPayload, { type: 'run' }>, hostName: string): FinishedRun {
  return { hostId: push.hostId, sessionId: push.sessionId, title: push.title, hostName };
}

/**
 * Finished runs coalesce: every one replaces the single "finished" notification with one that
 * lists them all (newest first, a session once). One run opens its session; several open the
 * computer's sessions (or the computers, when on several).
 */
export function finishedNotification(runs: readonly FinishedRun[], platform: Platform): NotificationSpec {
  const kept: FinishedRun[] = [];
  for (const run of runs) {
    if (kept.length >= MAX_FINISHED_SHOWN) break;
    if (!kept.some((k) => k.hostId === run.hostId && k.sessionId === run.sessionId)) kept.push(run);
  }
  const first = kept[0]!;
  const hosts = new Set(kept.map((r) => r.hostId));
  const open =
    kept.length === 1
      ? openHash(first.hostId, first.sessionId)
      : hosts.size === 1
        ? formatRoute({ name: 'host', hostId: first.hostId })
        : formatRoute({ name: 'home' });
  const where = hosts.size === 1 ? `On ${first.hostName}.` : `On ${hosts.size} computers.`;
  const listed = kept.slice(0, FINISHED_LISTED).map((r) => r.title);
  const more = kept.length - listed.length;
  return {
    title: kept.length === 1 ? `Finished: ${first.title}` : `${kept.length} runs finished`,
    options: {
      body: kept.length === 1 ? where : `${listed.join('\n')}${more > 0 ? `\nand ${more} more` : ''}\n${where}`,
      tag: FINISHED_TAG,
      data: { hostId: first.hostId, sessionId: first.sessionId, open, finished: kept },
      silent: false,
      renotify: true,
      ...(platform.icon ? { icon: platform.icon, badge: platform.icon } : {}),
    },
  };
}

/** A session waits for the person: a wrapped program's question, a run at its limit or its budget. A tap opens it. */
export function waitingNotification(push: WaitingPush, hostName: string, platform: Platform): NotificationSpec {
  const body = waitingBody(push, hostName);
  return quiet(`wait:${push.sessionId}`, waitingTitle(push), body, push.hostId, push.sessionId, platform, false);
}

/**
 * A declarative message handed to the worker without a payload it knows (declarative-push.ts):
 * shown as it declares itself. A tap opens its `navigate` when that is a screen of this app, else
 * the app's home: the worker opens nothing outside its own scope.
 */
export function declaredNotification(
  declared: ReceivedDeclarative['notification'],
  scopeUrl: string,
  platform: Platform,
): NotificationSpec {
  const base = scopeUrl.replace(/#.*$/, '');
  const open = declared.navigate.startsWith(`${base}#/`)
    ? declared.navigate.slice(base.length)
    : formatRoute({ name: 'home' });
  return {
    title: declared.title,
    options: {
      body: declared.body ?? '',
      tag: declared.tag ?? 'tether:declared',
      data: { hostId: '', sessionId: '', open },
      silent: declared.silent ?? false,
      ...(platform.icon ? { icon: platform.icon, badge: platform.icon } : {}),
    },
  };
}

/** A push that did not decode, or names a computer this device no longer knows: shown all the
 * same (a push that shows nothing gets the subscription revoked on iOS), saying nothing it read. */
export function unknownNotification(platform: Platform): NotificationSpec {
  return {
    title: 'Tether',
    options: {
      body: 'A computer sent something this app could not read. Open the app to see what waits.',
      tag: 'tether:unknown',
      data: { hostId: '', sessionId: '', open: formatRoute({ name: 'home' }) },
      silent: true,
      ...(platform.icon ? { icon: platform.icon, badge: platform.icon } : {}),
    },
  };
}

function quiet(
  tag: string,
  title: string,
  body: string,
  hostId: string,
  sessionId: string,
  platform: Platform,
  silent = true,
): NotificationSpec {
  return {
    title,
    options: {
      body,
      tag,
      data: { hostId, sessionId, open: openHash(hostId, sessionId) },
      silent,
      ...(platform.icon ? { icon: platform.icon, badge: platform.icon } : {}),
    },
  };
}

/** A host's name as this device shows it, escaped for a notification's plain text. */
export function shownHostName(name: string): string {
  return visibleText(name, { maxLength: 64 }) || 'your computer';
}
