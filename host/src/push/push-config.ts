import type { Result } from '@tether/shared-protocol';
import { fail, ok, parseJson } from '@tether/shared-protocol';
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describeIssues } from '../schema-issues.js';

/**
 * `<data-dir>/notifications.json`: optional. Which approvals must not be answered from the lock
 * screen, who the push services may contact about this host (the VAPID subject), and push
 * services beyond the well-known ones.
 */

/**
 * Patterns whose approvals offer only Deny and Open on the lock screen, unless the config names
 * its own list. A pattern matches anywhere in the action, ignoring case and runs of spaces; `*`
 * stands for any text. Matching too much only costs opening the app.
 */
export const DEFAULT_DENY_ONLY_PATTERNS: readonly string[] = [
  'sudo ',
  'doas ',
  'rm -rf',
  'rm -fr',
  'rm -r ',
  'git push*--force',
  'git push*-f',
  'git push*+',
  'git push*--delete',
  'git push*--mirror',
  'git reset --hard',
  'git clean',
  'mkfs',
  'dd if=',
  '| sh',
  '| bash',
  'chmod -R',
  'chown -R',
];

/**
 * The VAPID subject when none is configured. Push services want a contact they can resolve (Apple's
 * refuses `localhost`, `.local` and other placeholders outright), so the default is a reserved,
 * resolvable domain; set `contact` to your own address or site.
 */
export const DEFAULT_CONTACT = 'mailto:tether-host@example.com';

/**
 * Hosts of the push services browsers use: Chrome and Android (FCM), Firefox (Mozilla autopush),
 * Safari and iOS (Apple), Edge (Windows Push Notification Services). A device may only name an
 * endpoint on one of these (or on `pushServices`), so a subscription cannot make the host send
 * requests to other servers (its own network, say).
 */
export const KNOWN_PUSH_SERVICE_HOSTS: readonly string[] = [
  'fcm.googleapis.com',
  'android.googleapis.com',
  'updates.push.services.mozilla.com',
  'push.services.mozilla.com',
  'web.push.apple.com',
  '.push.apple.com',
  '.notify.windows.com',
];

const Pattern = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

export const NotificationsConfigSchema = v.strictObject({
  lockScreen: v.optional(
    v.strictObject({
      /** Replaces DEFAULT_DENY_ONLY_PATTERNS. */
      denyOnly: v.optional(v.pipe(v.array(Pattern), v.maxLength(200))),
      /** More patterns on top of the defaults. */
      alsoDenyOnly: v.optional(v.pipe(v.array(Pattern), v.maxLength(200))),
      /**
       * Offer Approve for actions the notification cannot show whole (several lines, or cut).
       * Off by default: approving what one did not see is what the lock screen must not invite.
       */
      approvePartial: v.optional(v.boolean()),
    }),
  ),
  contact: v.optional(v.pipe(v.string(), v.maxLength(512), v.regex(/^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/))),
  /** More push service origins (`https://host[:port]`), e.g. a self-hosted one. */
  pushServices: v.optional(v.pipe(v.array(v.pipe(v.string(), v.url(), v.startsWith('https://'))), v.maxLength(20))),
});

export interface NotificationsConfig {
  denyOnly: readonly string[];
  approvePartial: boolean;
  contact: string;
  /** Origins (`https://host:port`) allowed besides the well-known push services. */
  extraPushOrigins: readonly string[];
}

export const DEFAULT_NOTIFICATIONS_CONFIG: NotificationsConfig = {
  denyOnly: DEFAULT_DENY_ONLY_PATTERNS,
  approvePartial: false,
  contact: DEFAULT_CONTACT,
  extraPushOrigins: [],
};

/** Reads the config; a missing file gives the defaults, a bad one an error naming the file. */
export function loadNotificationsConfig(path: string): Result<NotificationsConfig> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(DEFAULT_NOTIFICATIONS_CONFIG);
    return fail('invalid-params', `${path}: ${(error as Error).message}`);
  }
  const json = parseJson(text);
  if (!json) return fail('invalid-params', `${path} is not valid JSON`);
  const parsed = v.safeParse(NotificationsConfigSchema, json.value);
  if (!parsed.success) return fail('invalid-params', `${path}: ${describeIssues(parsed.issues)}`);
  const c = parsed.output;
  return ok({
    denyOnly: [...(c.lockScreen?.denyOnly ?? DEFAULT_DENY_ONLY_PATTERNS), ...(c.lockScreen?.alsoDenyOnly ?? [])],
    approvePartial: c.lockScreen?.approvePartial ?? false,
    contact: c.contact ?? DEFAULT_CONTACT,
    extraPushOrigins: (c.pushServices ?? []).map((url) => new URL(url).origin),
  });
}

/** Whether the host may send to `endpoint`: https, on a known push service or a configured origin. */
export function allowedEndpoint(endpoint: string, extraOrigins: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return false;
  if (extraOrigins.includes(url.origin)) return true;
  if (url.port !== '') return false;
  const host = url.hostname.toLowerCase();
  return KNOWN_PUSH_SERVICE_HOSTS.some((known) => (known.startsWith('.') ? host.endsWith(known) : host === known));
}
