import type { SessionEvent, SessionSummary } from '@tether/shared-protocol';
import { SessionSummarySchema, decodeEvent, encodeChannelMessage, isSessionEvent } from '@tether/shared-protocol';
import * as v from 'valibot';
import { maskSecrets } from '../push/secret-mask.js';

/** Masked events kept for the next viewer that needs the same one (a fan-out, a replay). */
const MEMO_ENTRIES = 1024;

/**
 * What a share link's viewer is shown of a session: every event as the device sees it, but with
 * each piece of text through the lock screen's masking (`maskSecrets`: tokens, passwords, keys in
 * commands, output, messages, diffs, titles), and without the photos and files sent with messages
 * unless the link was made with them. Ids are left as they are, so a tool call's start still meets
 * its end. An event that no longer fits its schema once masked (a value grew past its bound) is
 * shown as a notice in its place, so the viewer's sequence has no hole.
 *
 * Each event is masked and encoded once however many viewers follow it (a small memo by session and
 * sequence): a crowd of viewers costs the host one seal and one write each, nothing more.
 */
export class ViewerView {
  private readonly memo = new Map<string, { event: SessionEvent; frame?: Uint8Array }>();

  event(event: SessionEvent, includePhotos: boolean): SessionEvent {
    return this.entry(event, includePhotos).event;
  }

  /** The channel message `{t: "evt", event}` of the viewer's version of the event, encoded. */
  frame(event: SessionEvent, includePhotos: boolean): Uint8Array {
    const entry = this.entry(event, includePhotos);
    return (entry.frame ??= encodeChannelMessage({ t: 'evt', event: entry.event }));
  }

  private entry(event: SessionEvent, includePhotos: boolean) {
    const key = `${includePhotos ? 1 : 0}:${event.sessionId}:${event.seq}`;
    let entry = this.memo.get(key);
    if (entry) return entry;
    entry = { event: viewEvent(event, includePhotos) };
    if (this.memo.size >= MEMO_ENTRIES) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(key, entry);
    return entry;
  }

  summary(summary: SessionSummary): SessionSummary {
    const masked = v.safeParse(SessionSummarySchema, maskTree(summary, ''));
    return masked.success ? masked.output : { ...summary, title: 'Session', lastLine: '' };
  }
}

function viewEvent(event: SessionEvent, includePhotos: boolean): SessionEvent {
  let shown: unknown = maskTree(event, '');
  if (!includePhotos && event.type === 'message' && event.attachments?.length) {
    const { attachments: _left, ...rest } = shown as typeof event;
    shown = { ...rest, text: rest.text === '' ? '(a photo or file, not shared with viewers)' : rest.text };
  }
  const decoded = decodeEvent(shown);
  if (decoded.kind === 'event' && isSessionEvent(decoded.event)) return decoded.event;
  const { sessionId, seq, at } = event;
  return { type: 'notice', sessionId, seq, at, level: 'info', text: '(this event is not shown to viewers)' };
}

/** Keys whose values name things rather than say them: kept, so events still refer to each other. */
function isIdentifier(key: string): boolean {
  return key === 'id' || key === 'type' || key.endsWith('Id') || key === 'cutOutputs';
}

/** Every string in a JSON value masked, but under identifier keys; a new value, the input untouched. */
function maskTree(value: unknown, key: string): unknown {
  if (typeof value === 'string') return isIdentifier(key) ? value : maskSecrets(value).text;
  if (Array.isArray(value)) return value.map((item: unknown) => maskTree(item, key));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) out[name] = maskTree(item, name);
  return out;
}
