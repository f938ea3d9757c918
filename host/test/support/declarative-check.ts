/**
 * What WebKit checks before it shows a declarative push message itself, restated for tests from
 * its parser (WebKit, Source/WebCore/Modules/notifications/NotificationJSONParser.cpp,
 * `parseNotificationPayload` and `parseNotificationOptions`): the top-level `web_push` is the
 * number 8030; `notification` is an object whose `navigate` is a string holding a valid URL and
 * whose `title` is a non-empty string; `dir` one of auto/ltr/rtl, `lang`, `body` and `tag`
 * strings, `icon` a URL string, `silent` and `mutable` booleans, `app_badge` a non-negative
 * number or a string of digits; `data` any JSON. Anything else and WebKit drops the message (a
 * service worker then gets nothing to show either). Returns why it would be dropped, or undefined.
 */
export function webkitRefuses(text: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'top level is not an object';
  const top = json as Record<string, unknown>;
  if (top.web_push !== 8030) return 'web_push is not 8030';
  const n = top.notification;
  if (typeof n !== 'object' || n === null || Array.isArray(n)) return 'notification is not an object';
  const note = n as Record<string, unknown>;
  if (typeof note.navigate !== 'string' || !URL.canParse(note.navigate)) return 'navigate is not a valid URL';
  if (typeof note.title !== 'string' || note.title === '') return 'title is missing or empty';
  if (note.dir !== undefined && !['auto', 'ltr', 'rtl'].includes(note.dir as string)) return 'dir is not a direction';
  for (const key of ['lang', 'body', 'tag'] as const)
    if (note[key] !== undefined && typeof note[key] !== 'string') return `${key} is not a string`;
  if (note.icon !== undefined && (typeof note.icon !== 'string' || !URL.canParse(note.icon)))
    return 'icon is not a URL';
  for (const key of ['silent', 'mutable'] as const)
    if (note[key] !== undefined && typeof note[key] !== 'boolean') return `${key} is not a boolean`;
  const badge = note.app_badge;
  if (
    badge !== undefined &&
    !(typeof badge === 'number' && badge >= 0) &&
    !(typeof badge === 'string' && /^\d+$/.test(badge))
  )
    return 'app_badge is not a count';
  return undefined;
}
