import type { Approval, Clock, NotifyLevel, Scope, SessionEvent } from '@tether/shared-protocol';
import type { Result } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import type { Agent } from 'node:https';
import { PushCounters } from './push-counters.js';
import type { Db } from '../store/database.js';
import { ForegroundTracker } from './foreground.js';
import type { NotificationsConfig } from './push-config.js';
import { loadNotificationsConfig } from './push-config.js';
import type { LockScreenView } from './lock-screen-policy.js';
import { lockScreenView } from './lock-screen-policy.js';
import { PushDelivery } from './push-delivery.js';
import { pushHandlers } from './push-handlers.js';
import { PushNotifier } from './push-notifier.js';
import type { PushSender } from './push-sender.js';
import { WebPushSender } from './push-sender.js';
import { PushStore } from './push-store.js';
import type { VapidKeys } from './vapid-keys.js';
import { loadOrCreateVapidKeys } from './vapid-keys.js';

export interface PushServiceOptions {
  hostId: string;
  /** The computer's name, for the text of declarative messages. */
  hostName: string;
  db: Db;
  /** `<data-dir>/vapid-key.json` (0600). */
  vapidPath: string;
  /** `<data-dir>/notifications.json` (optional file). */
  configPath: string;
  deviceScopes: (deviceId: string) => readonly Scope[] | undefined;
  sessionTitle: (sessionId: string) => string | undefined;
  /** When a session's devices are notified (push-notifier.ts). */
  sessionNotify: (sessionId: string) => NotifyLevel | undefined;
  clock: Clock;
  /** Replaces the real sender (tests); else `WebPushSender`. */
  sender?: PushSender;
  /** For the real sender: trusts a test push service's CA. */
  agent?: Agent;
  /** For the real sender: the deadline of one request (ms). */
  requestTimeoutMs?: number;
  /** Push service origins allowed on top of the config's (a test's stand-in). */
  extraPushOrigins?: readonly string[];
  /** Milliseconds before the first retry (tests shorten it). */
  retryBaseMs?: number;
}

/** What `tether status` shows of push. */
export interface PushStatusFacts {
  subscriptions: number;
  /** Outcomes by reason: `push:delivered`, `push:gone`, `push:retry:timeout`, … */
  counters: Record<string, number>;
}

/**
 * Lock-screen notifications, put together: the VAPID keys, the subscriptions, what the apps say is
 * on their screens, the notifier that decides and the delivery that sends. The host feeds it every
 * session event (`onEvent`) and adds its device methods (`handlers`).
 */
export class PushService {
  readonly counters = new PushCounters();
  readonly store: PushStore;
  readonly foreground = new ForegroundTracker();
  readonly delivery: PushDelivery;
  private readonly notifier: PushNotifier;

  private constructor(
    private readonly options: PushServiceOptions,
    readonly vapid: VapidKeys,
    readonly config: NotificationsConfig,
  ) {
    this.store = new PushStore(options.db);
    const sender =
      options.sender ??
      new WebPushSender({
        vapid,
        contact: config.contact,
        clock: options.clock,
        ...(options.agent ? { agent: options.agent } : {}),
        ...(options.requestTimeoutMs !== undefined ? { timeoutMs: options.requestTimeoutMs } : {}),
      });
    this.delivery = new PushDelivery({
      sender,
      clock: options.clock,
      counters: this.counters,
      onGone: (endpoint) => this.store.remove(endpoint),
      ...(options.retryBaseMs !== undefined ? { retryBaseMs: options.retryBaseMs } : {}),
    });
    this.notifier = new PushNotifier({
      hostId: options.hostId,
      hostName: options.hostName,
      store: this.store,
      deviceScopes: options.deviceScopes,
      sessionTitle: options.sessionTitle,
      sessionNotify: options.sessionNotify,
      foreground: this.foreground,
      delivery: this.delivery,
      policy: config,
      counters: this.counters,
      clock: options.clock,
    });
  }

  /** Loads (or makes) the VAPID keys and reads the config; an error names the file at fault. */
  static start(options: PushServiceOptions): Result<PushService> {
    const vapid = loadOrCreateVapidKeys(options.vapidPath);
    if (!vapid.ok) return vapid;
    const config = loadNotificationsConfig(options.configPath);
    if (!config.ok) return config;
    const extra = [...config.value.extraPushOrigins, ...(options.extraPushOrigins ?? [])];
    return ok(new PushService(options, vapid.value.keys, { ...config.value, extraPushOrigins: extra }));
  }

  onEvent(event: SessionEvent): void {
    this.notifier.onEvent(event);
  }

  handlers() {
    return pushHandlers({
      store: this.store,
      foreground: this.foreground,
      vapidPublicKey: this.vapid.publicKey,
      extraPushOrigins: this.config.extraPushOrigins,
      clock: this.options.clock,
    });
  }

  /** An approval as its notification shows it, and whether it may be approved unopened. */
  lockScreen(approval: Pick<Approval, 'action' | 'tool' | 'place' | 'kind'>): LockScreenView {
    return lockScreenView(approval, this.config);
  }

  status(): PushStatusFacts {
    return { subscriptions: this.store.count(), counters: this.counters.snapshot() };
  }

  close(): void {
    this.delivery.close();
  }
}
