import * as v from 'valibot';
import { utf8Encode } from '../encoding.js';
import type { PushPayload } from './push-payload.js';
import { PushPayloadSchema, parsePushText } from './push-payload.js';
import {
  TAP_TO_ANSWER,
  approvalLines,
  approvalTitle,
  resolvedBody,
  resolvedTitle,
  runBody,
  runTitle,
  waitingBody,
  waitingTitle,
} from './notification-text.js';

/**
 * Declarative Web Push (Safari 18.4+, the W3C Push API's "declarative push message"): a push whose
 * decrypted body is JSON with `"web_push": 8030` and a `notification` (`title` and `navigate`
 * required; `body`, `tag`, `silent`, `data`, … optional) is shown by the browser itself, even when
 * no service worker runs, and a tap opens `navigate`. WebKit reads exactly these members
 * (Source/WebCore/Modules/notifications/NotificationJSONParser.cpp); without `"mutable": true`
 * the message is shown as sent and no service worker code runs for it.
 *
 * The host sends this form to a subscription whose device said it takes it (`push.subscribe`'s
 * `declarative`), built from the same masked payload as the service-worker form (push-payload.ts)
 * and encrypted the same way (RFC 8291): the push service sees nothing more. `data` carries that
 * payload, so a service worker that is handed the message after all (a browser that does not take
 * the form, or a future `mutable` one) shows the same notification with its usual handling.
 */

export const DECLARATIVE_WEB_PUSH = 8030;

/**
 * Bytes a declarative message may take. RFC 8291 in one 4096-byte record leaves 3993 bytes of
 * plaintext; past this the message goes without `data`, and past it again in the service-worker
 * form (which any worker still alive shows).
 */
export const MAX_DECLARATIVE_BYTES = 3900;

export interface DeclarativeNotification {
  title: string;
  body: string;
  /** Where a tap goes: the app's address and the screen's fragment. */
  navigate: string;
  tag: string;
  silent: boolean;
  data?: PushPayload;
}

export interface DeclarativePush {
  web_push: typeof DECLARATIVE_WEB_PUSH;
  notification: DeclarativeNotification;
}

/**
 * The app's screen a notification opens (the app's routes, `pwa/src/lib/route.ts`): an approval's
 * card for an approval and its answer, the session for the rest.
 */
export function pushFragment(payload: PushPayload): string {
  const host = encodeURIComponent(payload.hostId);
  return payload.type === 'approval' || payload.type === 'resolved'
    ? `#/h/${host}/a/${encodeURIComponent(payload.approvalId)}`
    : `#/h/${host}/s/${encodeURIComponent(payload.sessionId)}`;
}

/** The declarative message for `payload`; `hostName` already escaped and masked. */
export function declarativePush(payload: PushPayload, appUrl: string, hostName: string): DeclarativePush {
  const navigate = `${appUrl.replace(/#.*$/, '')}${pushFragment(payload)}`;
  const shown = ((): Omit<DeclarativeNotification, 'navigate' | 'data'> => {
    switch (payload.type) {
      case 'approval':
        return {
          title: approvalTitle(payload, hostName),
          body: [...approvalLines(payload, hostName), TAP_TO_ANSWER].join('\n'),
          tag: payload.approvalId,
          silent: false,
        };
      case 'resolved':
        return { title: resolvedTitle(hostName), body: resolvedBody(payload), tag: payload.approvalId, silent: true };
      case 'waiting':
        return {
          title: waitingTitle(payload),
          body: waitingBody(payload, hostName),
          tag: `wait:${payload.sessionId}`,
          silent: false,
        };
      case 'run':
        return {
          title: runTitle(payload),
          body: runBody(payload, hostName),
          tag: payload.status === 'done' ? 'runs:finished' : `run:${payload.sessionId}`,
          silent: false,
        };
    }
  })();
  return { web_push: DECLARATIVE_WEB_PUSH, notification: { ...shown, navigate, data: payload } };
}

/** Its JSON: with `data` when it fits MAX_DECLARATIVE_BYTES, else without; undefined when neither fits. */
export function encodeDeclarativePush(push: DeclarativePush): Uint8Array | undefined {
  const whole = utf8Encode(JSON.stringify(push));
  if (whole.length <= MAX_DECLARATIVE_BYTES) return whole;
  const { data: _data, ...bare } = push.notification;
  const smaller = utf8Encode(JSON.stringify({ ...push, notification: bare }));
  return smaller.length <= MAX_DECLARATIVE_BYTES ? smaller : undefined;
}

const DeclarativePushSchema = v.object({
  web_push: v.literal(DECLARATIVE_WEB_PUSH),
  notification: v.object({
    title: v.pipe(v.string(), v.minLength(1), v.maxLength(1000)),
    navigate: v.pipe(v.string(), v.maxLength(2048), v.url()),
    body: v.optional(v.pipe(v.string(), v.maxLength(4000))),
    tag: v.optional(v.pipe(v.string(), v.maxLength(256))),
    silent: v.optional(v.boolean()),
    data: v.optional(v.unknown()),
  }),
});

export interface ReceivedDeclarative {
  notification: Omit<DeclarativeNotification, 'data' | 'body' | 'tag' | 'silent'> &
    Partial<Pick<DeclarativeNotification, 'body' | 'tag' | 'silent'>>;
  /** The payload it carries, when it carries one of this version. */
  payload?: PushPayload;
}

/** A push body is at most 4096 bytes, so its text can be no longer. */
const MAX_RECEIVED_BYTES = 4096;

/** A declarative message handed to a service worker after all; undefined for anything else. */
export function decodeDeclarativePush(text: string): ReceivedDeclarative | undefined {
  const parsed = v.safeParse(DeclarativePushSchema, parsePushText(text, MAX_RECEIVED_BYTES));
  if (!parsed.success) return undefined;
  const { data, ...notification } = parsed.output.notification;
  const payload = data === undefined ? undefined : v.safeParse(PushPayloadSchema, data);
  return { notification, ...(payload?.success ? { payload: payload.output } : {}) };
}
