import type { Decision } from '@tether/shared-protocol';
import { decodeDeclarativePush, decodePushPayload } from '@tether/shared-protocol';
import type { HostRecord } from '../data/records.js';
import { hostDisplayName } from '../data/records.js';
import type { AnswerOutcome, FinishedRun, NotificationData, NotificationSpec, Platform } from './notification-view.js';
import {
  FINISHED_TAG,
  approvalNotification,
  declaredNotification,
  finishedNotification,
  finishedRun,
  outcomeNotification,
  resolvedNotification,
  runNotification,
  shownHostName,
  unknownNotification,
  waitingNotification,
} from './notification-view.js';

/** A shown notification, as much of it as the handlers use. */
export interface ShownNotification {
  tag: string;
  data: unknown;
  close(): void;
}

/** A window of the app, as much of it as the handlers use. */
export interface AppWindow {
  visibilityState?: string;
  focus(): Promise<unknown>;
  postMessage(message: unknown): void;
}

/** What the handlers need from the service worker's world: the seams its tests replace. */
export interface SwPushDeps {
  showNotification(spec: NotificationSpec): Promise<void>;
  getNotifications(tag?: string): Promise<ShownNotification[]>;
  windows(): Promise<AppWindow[]>;
  openWindow(url: string): Promise<unknown>;
  /** The app's URL (the worker's scope), to which a fragment is added. */
  scopeUrl: string;
  hosts(): Promise<HostRecord[]>;
  answer(record: HostRecord, approvalId: string, decision: Decision): Promise<AnswerOutcome>;
  platform: Platform;
}

/** The message the page listens for to go to a screen (`{type, hash}`). */
export const OPEN_MESSAGE = 'tether:open';
/** The page's message to the service worker: these approvals of this host are still pending
 * (`{type, hostId, pending}`), so the notifications of the others can go. */
export const CLOSE_ANSWERED_MESSAGE = 'tether:close-answered';
/** Pending approvals one such message may name; a longer list is not a real one. */
export const MAX_PENDING_NAMED = 1000;

/**
 * The service worker's side of notifications. Every push shows a notification (a push that shows
 * nothing gets the subscription revoked on iOS); an action answers with a sealed one-shot call and
 * the notification is replaced with the outcome; a tap opens the app on the session.
 */
export class SwPush {
  /** Approvals being answered from a notification now: their outcome is about to take its place. */
  private readonly answering = new Set<string>();

  constructor(private readonly deps: SwPushDeps) {}

  /**
   * A push message: the worker form, or a declarative one (Safari shows those itself; another
   * browser, or a future `mutable` message, hands it here), whose `data` carries the same payload.
   */
  async onPush(text: string | undefined): Promise<void> {
    const declared = text === undefined ? undefined : decodeDeclarativePush(text);
    const payload = text === undefined ? undefined : (decodePushPayload(text) ?? declared?.payload);
    if (!payload && declared) {
      return this.deps.showNotification(
        declaredNotification(declared.notification, this.deps.scopeUrl, this.deps.platform),
      );
    }
    const record = payload && (await this.host(payload.hostId));
    if (!payload || !record) return this.deps.showNotification(unknownNotification(this.deps.platform));
    const name = shownHostName(hostDisplayName(record));
    switch (payload.type) {
      case 'approval':
        return this.deps.showNotification(approvalNotification(payload, name, this.deps.platform));
      case 'run': {
        if (payload.status !== 'done')
          return this.deps.showNotification(runNotification(payload, name, this.deps.platform));
        // Finished runs fold into the one notification already showing them.
        const earlier = (await this.deps.getNotifications(FINISHED_TAG)).flatMap((n) => finishedOn(n.data));
        const runs = [finishedRun(payload, name), ...earlier];
        return this.deps.showNotification(finishedNotification(runs, this.deps.platform));
      }
      case 'waiting':
        return this.deps.showNotification(waitingNotification(payload, name, this.deps.platform));
      case 'resolved': {
        const shown = await this.deps.getNotifications(payload.approvalId);
        const someoneLooks = (await this.deps.windows()).some((w) => w.visibilityState === 'visible');
        // With the app in front a push need not show anything (the browser does not insist), and
        // nothing is showing to replace: done. Otherwise the answer replaces what was shown.
        if (shown.length === 0 && someoneLooks) return;
        return this.deps.showNotification(resolvedNotification(payload, name, this.deps.platform));
      }
    }
  }

  /** A tap (action '') or an action button on `notification`. */
  async onClick(notification: ShownNotification, action: string): Promise<void> {
    const data = notificationData(notification.data);
    if (!data) {
      notification.close();
      return this.open(undefined);
    }
    const decision: Decision | undefined = action === 'approve' ? 'allow-once' : action === 'deny' ? 'deny' : undefined;
    // Approve is honoured only where the notification offered it (the lock-screen policy).
    if (!decision || !data.approvalId || (decision === 'allow-once' && data.lockScreen !== 'approve')) {
      notification.close();
      return this.open(data);
    }
    const approvalId = data.approvalId;
    this.answering.add(approvalId);
    try {
      const record = await this.host(data.hostId);
      const outcome: AnswerOutcome = record
        ? await this.deps.answer(record, approvalId, decision)
        : { kind: 'failed', message: 'This device is no longer paired with that computer.' };
      const name = shownHostName(record ? hostDisplayName(record) : '');
      await this.deps.showNotification(outcomeNotification(data, name, outcome, this.deps.platform));
    } finally {
      this.answering.delete(approvalId);
    }
  }

  /**
   * Closes the notifications of approvals no longer waiting (the app learnt of their answer), but
   * not one being answered from its notification right now: its outcome takes its place (same tag),
   * and a close that read the list before the outcome was shown would take the outcome away.
   */
  async closeResolved(hostId: string, pendingIds: ReadonlySet<string>): Promise<void> {
    for (const n of await this.deps.getNotifications()) {
      const data = notificationData(n.data);
      if (
        data?.hostId === hostId &&
        data.approvalId &&
        !pendingIds.has(data.approvalId) &&
        !this.answering.has(data.approvalId) &&
        n.tag === data.approvalId
      )
        n.close();
    }
  }

  private async open(data: NotificationData | undefined): Promise<void> {
    const hash = data?.open ?? '#/';
    const windows = await this.deps.windows();
    const window = windows.find((w) => w.visibilityState === 'visible') ?? windows[0];
    if (window) {
      window.postMessage({ type: OPEN_MESSAGE, hash });
      await window.focus().catch(() => undefined);
      return;
    }
    await this.deps.openWindow(`${this.deps.scopeUrl.replace(/#.*$/, '')}${hash}`);
  }

  private async host(hostId: string): Promise<HostRecord | undefined> {
    return (await this.deps.hosts()).find((h) => h.hostId === hostId && h.refused === undefined);
  }
}

/** The data a notification carries, checked: it comes back from the platform as `unknown`. */
export function notificationData(value: unknown): NotificationData | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const d = value as Record<string, unknown>;
  if (typeof d.hostId !== 'string' || typeof d.sessionId !== 'string' || typeof d.open !== 'string') return undefined;
  if (!d.open.startsWith('#/')) return undefined;
  return {
    hostId: d.hostId,
    sessionId: d.sessionId,
    open: d.open,
    ...(typeof d.approvalId === 'string' ? { approvalId: d.approvalId } : {}),
    ...(d.lockScreen === 'approve' || d.lockScreen === 'deny-only' ? { lockScreen: d.lockScreen } : {}),
  };
}

/**
 * The finished runs kept on a shown notification. Read back from the browser, so checked field by
 * field: anything else is left out (the notification is replaced all the same).
 */
function finishedOn(data: unknown): FinishedRun[] {
  const list = (data as { finished?: unknown } | null)?.finished;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item: unknown) => {
    const r = item as Partial<Record<keyof FinishedRun, unknown>> | null;
    return r &&
      typeof r.hostId === 'string' &&
      typeof r.sessionId === 'string' &&
      typeof r.title === 'string' &&
      typeof r.hostName === 'string'
      ? [{ hostId: r.hostId, sessionId: r.sessionId, title: r.title, hostName: r.hostName }]
      : [];
  });
}
