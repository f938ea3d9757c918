import type { Clock } from '@tether/shared-protocol';
import { systemClock } from '@tether/shared-protocol';
import type { Agent } from 'node:https';
import { request } from 'node:https';
import webPush from 'web-push';
import type { VapidKeys } from './vapid-keys.js';

/** The port the notifier sends through: `WebPushSender` for real, a fake in unit tests. */
export interface PushSender {
  send(message: PushMessage): Promise<SendOutcome>;
}

export interface PushMessage {
  subscription: { endpoint: string; p256dh: string; auth: string };
  /** Plaintext; encrypted for the subscription (RFC 8291, aes128gcm) by the sender. */
  payload: Uint8Array;
  /** Seconds the push service keeps it for a phone that is offline (RFC 8030 TTL). */
  ttlSeconds: number;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  /** Replaces an undelivered message with the same topic (RFC 8030 §5.4): ≤ 32 base64url characters. */
  topic?: string;
}

export type RetryReason = 'rate-limited' | 'server-error' | 'timeout' | 'network';

export type SendOutcome =
  | { kind: 'delivered'; status: number }
  /** The subscription is no more (404, 410): forget it. */
  | { kind: 'gone'; status: number }
  /** Worth trying again later: 429, 5xx, a timeout, a connection that failed. */
  | { kind: 'retry'; reason: RetryReason; status?: number; retryAfterMs?: number }
  /** Refused for good (400, 401, 403, 413, a body too large): counted, not retried. */
  | { kind: 'rejected'; status: number; reason: string };

/** Bytes a push service accepts in one request body (RFC 8291 §4; FCM, Apple and Mozilla alike). */
export const MAX_PUSH_BODY_BYTES = 4096;
/** Milliseconds one request to a push service may take, from connecting to the answer's headers. */
export const PUSH_REQUEST_TIMEOUT_MS = 10_000;

export interface WebPushSenderOptions {
  vapid: VapidKeys;
  /** The VAPID subject: `mailto:` or `https:` (push-config.ts). */
  contact: string;
  /** Trusts a test push service's CA; the platform's CAs otherwise. */
  agent?: Agent;
  timeoutMs?: number;
  clock?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
}

/**
 * Sends through the push service named by each subscription's endpoint: the body encrypted and
 * the VAPID header signed by `web-push` (`generateRequestDetails`), the request made here so that
 * its deadline, its size limit and the reading of each answer are ours.
 */
export class WebPushSender implements PushSender {
  private readonly timeoutMs: number;
  private readonly clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;

  constructor(private readonly options: WebPushSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? PUSH_REQUEST_TIMEOUT_MS;
    this.clock = options.clock ?? systemClock;
  }

  send(message: PushMessage): Promise<SendOutcome> {
    let details: webPush.RequestDetails;
    try {
      details = webPush.generateRequestDetails(
        { endpoint: message.subscription.endpoint, keys: message.subscription },
        Buffer.from(message.payload),
        {
          vapidDetails: {
            subject: this.options.contact,
            publicKey: this.options.vapid.publicKey,
            privateKey: this.options.vapid.privateKey,
          },
          TTL: message.ttlSeconds,
          urgency: message.urgency,
          contentEncoding: 'aes128gcm',
          ...(message.topic !== undefined ? { topic: message.topic } : {}),
        },
      );
    } catch (error) {
      // A subscription whose keys do not make a valid point, or an option out of range.
      return Promise.resolve({ kind: 'rejected', status: 0, reason: `bad-subscription: ${(error as Error).message}` });
    }
    const body = details.body ?? Buffer.alloc(0);
    if (body.length > MAX_PUSH_BODY_BYTES) return Promise.resolve({ kind: 'rejected', status: 0, reason: 'too-large' });
    return this.post(details.endpoint, details.headers, body);
  }

  private post(endpoint: string, headers: webPush.Headers, body: Buffer): Promise<SendOutcome> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: SendOutcome) => {
        if (settled) return;
        settled = true;
        this.clock.clearTimeout(timer);
        resolve(outcome);
      };
      const req = request(endpoint, {
        method: 'POST',
        headers: { ...headers },
        ...(this.options.agent ? { agent: this.options.agent } : {}),
      });
      const timer = this.clock.setTimeout(() => {
        finish({ kind: 'retry', reason: 'timeout' });
        req.destroy();
      }, this.timeoutMs);
      req.on('response', (res) => {
        res.resume(); // the body says nothing we act on
        finish(outcomeOf(res.statusCode ?? 0, res.headers['retry-after']));
      });
      req.on('error', () => finish({ kind: 'retry', reason: 'network' }));
      req.end(body);
    });
  }
}

/** What an HTTP status from a push service means for this subscription (RFC 8030 §5, §6.2). */
export function outcomeOf(status: number, retryAfter?: string | string[]): SendOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 404 || status === 410) return { kind: 'gone', status };
  const after = parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  if (status === 429)
    return { kind: 'retry', reason: 'rate-limited', status, ...(after ? { retryAfterMs: after } : {}) };
  if (status >= 500)
    return { kind: 'retry', reason: 'server-error', status, ...(after ? { retryAfterMs: after } : {}) };
  return { kind: 'rejected', status, reason: `http-${status}` };
}

/** `Retry-After` in seconds (the only form push services send); undefined when absent or odd. */
function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,6}$/.test(value.trim())) return undefined;
  return Number(value.trim()) * 1000;
}
