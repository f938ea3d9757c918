import type { Approval, Clock, NotifyLevel, Scope, SessionEvent } from '@tether/shared-protocol';
import { MAX_PUSH_TITLE, PUSH_PAYLOAD_VERSION, encodePushPayload } from '@tether/shared-protocol';
import type { PushCounters, PushReason } from './push-counters.js';
import { oneLine, summariseAction } from './approval-summary.js';
import type { ForegroundTracker } from './foreground.js';
import type { LockScreenPolicy } from './lock-screen-policy.js';
import { lockScreenChoice } from './lock-screen-policy.js';
import { maskSecrets } from './secret-mask.js';
import type { PushDelivery } from './push-delivery.js';
import type { PushMessage } from './push-sender.js';
import type { PushStore, PushSubscriptionRecord } from './push-store.js';

/** Seconds a push service keeps an approval's message for an offline phone: about as long as an
 * answer from the lock screen is still useful; after that the app shows it on open. */
export const APPROVAL_PUSH_TTL_S = 120;
/** Seconds a "run ended" message is kept for an offline phone. */
export const RUN_PUSH_TTL_S = 3600;
/** Approvals remembered with the subscriptions told of them, to send "resolved" to the same ones.
 * Past it the oldest is forgotten (its notification then closes when the app next opens). */
export const MAX_TRACKED_APPROVALS = 1024;

export interface PushNotifierDeps {
  hostId: string;
  store: PushStore;
  /** A device's scopes, or undefined when it is unknown or revoked. */
  deviceScopes: (deviceId: string) => readonly Scope[] | undefined;
  sessionTitle: (sessionId: string) => string | undefined;
  /** When a session's devices are notified (`needs` for a session not known). */
  sessionNotify: (sessionId: string) => NotifyLevel | undefined;
  foreground: ForegroundTracker;
  delivery: PushDelivery;
  policy: LockScreenPolicy;
  counters: PushCounters;
  clock: Pick<Clock, 'now'>;
}

/**
 * Turns session events into push messages: an approval raised while no device that may answer
 * shows its session in front goes to every subscribed device allowed to answer it; its resolution
 * goes to the same subscriptions (but the answering device's), so the notification closes
 * everywhere; a run's end goes to those who asked. Called from the event log's listener, so it
 * only decides and queues.
 */
export class PushNotifier {
  /** Approval id → endpoints whose message went out, oldest approval first. */
  private readonly told = new Map<string, Set<string>>();

  constructor(private readonly deps: PushNotifierDeps) {}

  onEvent(event: SessionEvent): void {
    switch (event.type) {
      case 'approval.requested':
        return this.requested(event.approval);
      case 'approval.resolved':
        return this.resolved(event.approval);
      case 'session.waiting':
        return this.waiting(event.sessionId, event.reason, event.text);
      case 'run.finished':
        if (event.status === 'done' || event.status === 'error')
          this.runEnded(event.sessionId, event.status, event.error);
        return;
      default:
        return;
    }
  }

  private requested(approval: Approval): void {
    if (approval.status !== 'pending' || this.silenced(approval.sessionId)) return;
    const targets = this.unwatched(
      approval.sessionId,
      this.targets((s) => s.preferences.approvals, 'approve'),
    );
    if (targets.length === 0) return;
    // What looks secret is masked on the lock screen, and such an action is never approved there:
    // what would be approved is not what is shown. The app shows it whole.
    const secrets = maskSecrets(approval.action);
    const summary = summariseAction(secrets.text);
    const payload = encodePushPayload({
      v: PUSH_PAYLOAD_VERSION,
      type: 'approval',
      hostId: this.deps.hostId,
      approvalId: approval.id,
      sessionId: approval.sessionId,
      title: this.title(approval.sessionId),
      summary: summary.text,
      kind: approval.kind,
      tool: oneLine(approval.tool, 128),
      place: oneLine(approval.place, 128),
      // A folder's configuration is answered where it can be read whole, never from the lock screen.
      lockScreen:
        secrets.masked || approval.kind === 'trust'
          ? 'deny-only'
          : lockScreenChoice(this.deps.policy, approval.action, summary.shownWhole),
    });
    if (!payload) return this.count('rejected:payload-too-large'); // bounded fields: a bug
    const told = new Set<string>();
    this.remember(approval.id, told);
    for (const subscription of targets) {
      this.deps.delivery.enqueue({
        key: approval.id,
        deviceId: subscription.deviceId,
        message: message(subscription, payload, APPROVAL_PUSH_TTL_S, 'high', topicFor(approval.id)),
        onSent: () => told.add(subscription.endpoint),
      });
    }
  }

  private resolved(approval: Approval): void {
    // What has not gone out yet need not: the push below replaces it by topic anyway.
    this.deps.delivery.cancel(approval.id);
    const told = this.told.get(approval.id);
    this.told.delete(approval.id);
    if (!told || told.size === 0) return;
    if (approval.status === 'pending') return;
    const payload = encodePushPayload({
      v: PUSH_PAYLOAD_VERSION,
      type: 'resolved',
      hostId: this.deps.hostId,
      approvalId: approval.id,
      sessionId: approval.sessionId,
      status: approval.status,
      by: oneLine(approval.answeredBy?.label ?? '', 128),
    });
    if (!payload) return this.count('rejected:payload-too-large');
    const answeredBy = approval.answeredBy?.kind === 'device' ? approval.answeredBy.id : undefined;
    for (const endpoint of told) {
      const subscription = this.deps.store.get(endpoint);
      // The device that answered replaced its own notification with the outcome already.
      if (!subscription || subscription.deviceId === answeredBy) continue;
      this.deps.delivery.enqueue({
        key: `resolved:${approval.id}`,
        deviceId: subscription.deviceId,
        message: message(subscription, payload, APPROVAL_PUSH_TTL_S, 'normal', topicFor(approval.id)),
      });
    }
  }

  /**
   * A run ended. A failure goes to the devices that asked for failures; a finished run to those
   * that asked for every finished run and, when the session is set to `done`, to every device that
   * hears when it needs the person. Each device's finished runs fold into one notification there.
   */
  private runEnded(sessionId: string, status: 'done' | 'error', error: string | undefined): void {
    if (this.silenced(sessionId)) return;
    const everyFinish = this.deps.sessionNotify(sessionId) === 'done';
    const wanted = (s: PushSubscriptionRecord) =>
      status === 'done'
        ? s.preferences.runFinished || (everyFinish && s.preferences.approvals)
        : s.preferences.runFailed;
    const targets = this.unwatched(sessionId, this.targets(wanted, 'watch'));
    if (targets.length === 0) return;
    const payload = encodePushPayload({
      v: PUSH_PAYLOAD_VERSION,
      type: 'run',
      hostId: this.deps.hostId,
      sessionId,
      title: this.title(sessionId),
      status,
      text: status === 'error' ? summariseAction(maskSecrets(error ?? '').text).text : '',
    });
    if (!payload) return this.count('rejected:payload-too-large');
    for (const subscription of targets) {
      this.deps.delivery.enqueue({
        key: `run:${sessionId}`,
        deviceId: subscription.deviceId,
        message: message(subscription, payload, RUN_PUSH_TTL_S, 'normal', topicFor(`run_${sessionId}`)),
      });
    }
  }

  /** A session stopped for the person: heard by those who hear of approvals, since it is one in all but name. */
  private waiting(sessionId: string, reason: 'question' | 'limit', text: string): void {
    if (this.silenced(sessionId)) return;
    const targets = this.unwatched(
      sessionId,
      this.targets((s) => s.preferences.approvals, 'watch'),
    );
    if (targets.length === 0) return;
    const payload = encodePushPayload({
      v: PUSH_PAYLOAD_VERSION,
      type: 'waiting',
      hostId: this.deps.hostId,
      sessionId,
      title: this.title(sessionId),
      reason,
      text: summariseAction(maskSecrets(text).text).text,
    });
    if (!payload) return this.count('rejected:payload-too-large');
    for (const subscription of targets) {
      this.deps.delivery.enqueue({
        key: `waiting:${sessionId}`,
        deviceId: subscription.deviceId,
        message: message(subscription, payload, APPROVAL_PUSH_TTL_S, 'high', topicFor(`wait_${sessionId}`)),
      });
    }
  }

  /** Subscriptions of live devices with `scope` that want this kind of message. */
  private targets(wanted: (s: PushSubscriptionRecord) => boolean, scope: Scope): PushSubscriptionRecord[] {
    return this.deps.store.active().filter((s) => wanted(s) && this.deps.deviceScopes(s.deviceId)?.includes(scope));
  }

  /**
   * Of `targets`, those to tell about `sessionId` given who has it in front: nobody when a device
   * that may answer approvals shows it (the person is looking, and can act there); otherwise all
   * but the devices that show it themselves. A `watch`-only device stands in for nobody else: it
   * cannot answer, so its report must not keep an approval from the phones that can.
   */
  private unwatched(sessionId: string, targets: PushSubscriptionRecord[]): PushSubscriptionRecord[] {
    if (targets.length === 0) return targets;
    const watchers = this.deps.foreground.watchers(sessionId, this.deps.clock.now());
    if (watchers.size === 0) return targets;
    const canAnswer = [...watchers].some((id) => this.deps.deviceScopes(id)?.includes('approve'));
    const left = canAnswer ? [] : targets.filter((s) => !watchers.has(s.deviceId));
    if (left.length === 0) this.count('skipped:in-front');
    return left;
  }

  /** The session is set to notify no one (counted: a person looking for a missing push finds why). */
  private silenced(sessionId: string): boolean {
    if (this.deps.sessionNotify(sessionId) !== 'off') return false;
    this.count('skipped:session-off');
    return true;
  }

  private title(sessionId: string): string {
    return oneLine(this.deps.sessionTitle(sessionId) ?? 'Session', MAX_PUSH_TITLE);
  }

  private remember(approvalId: string, told: Set<string>): void {
    this.told.set(approvalId, told);
    while (this.told.size > MAX_TRACKED_APPROVALS) this.told.delete(this.told.keys().next().value!);
  }

  private count(reason: PushReason): void {
    this.deps.counters.add(`push:${reason}`);
  }
}

function message(
  subscription: PushSubscriptionRecord,
  payload: Uint8Array,
  ttlSeconds: number,
  urgency: PushMessage['urgency'],
  topic: string | undefined,
): PushMessage {
  return {
    subscription: { endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth },
    payload,
    ttlSeconds,
    urgency,
    ...(topic !== undefined ? { topic } : {}),
  };
}

/** An RFC 8030 topic: at most 32 characters of the URL-safe base64 alphabet, else none. */
export function topicFor(id: string): string | undefined {
  return /^[A-Za-z0-9_-]{1,32}$/.test(id) ? id : undefined;
}
