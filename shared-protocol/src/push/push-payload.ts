import * as v from 'valibot';
import { APPROVAL_KINDS } from '../rpc/approvals.js';
import { Id } from '../rpc/common.js';
import { utf8Encode } from '../encoding.js';

/**
 * What a Web Push message carries, from the host to the app's service worker (RFC 8291 encrypted
 * by the host for the subscription's keys; the push service sees only its size and timing).
 *
 * Small on purpose: a reference to the approval, the session's title, one line saying what is
 * asked and where. Never a key, a token or a whole file: the whole action is read over the sealed
 * channel when the person opens the app. Text fields are already escaped by the host with
 * `visibleText` (a notification is plain text, but hidden characters must still show).
 */

export const PUSH_PAYLOAD_VERSION = 1;

/**
 * Bytes of JSON a push message may carry. RFC 8291 in one 4096-byte record leaves 3993 bytes of
 * plaintext, and push services refuse bodies over 4096 bytes; this keeps well clear of both.
 */
export const MAX_PUSH_PAYLOAD_BYTES = 3000;
/** Characters of the one-line summary of an action, before its "+N lines" note. */
export const MAX_PUSH_SUMMARY = 240;
/** Characters of a session title in a notification. */
export const MAX_PUSH_TITLE = 120;

const HostId = v.pipe(v.string(), v.length(22), v.regex(/^[A-Za-z0-9_-]+$/));
const Line = (max: number) => v.pipe(v.string(), v.maxLength(max));

/** An approval waits. `lockScreen: 'deny-only'` means the policy forbids approving it unopened. */
export const ApprovalPushSchema = v.object({
  v: v.literal(PUSH_PAYLOAD_VERSION),
  type: v.literal('approval'),
  hostId: HostId,
  approvalId: Id,
  sessionId: Id,
  title: Line(MAX_PUSH_TITLE),
  /** One line: the action's first line (escaped), cut, with how much more there is. */
  summary: Line(MAX_PUSH_SUMMARY + 64),
  kind: v.picklist(APPROVAL_KINDS),
  tool: Line(128),
  place: Line(128),
  lockScreen: v.picklist(['approve', 'deny-only']),
});

/** An approval was answered elsewhere (or cancelled): its notification should go. */
export const ResolvedPushSchema = v.object({
  v: v.literal(PUSH_PAYLOAD_VERSION),
  type: v.literal('resolved'),
  hostId: HostId,
  approvalId: Id,
  sessionId: Id,
  status: v.picklist(['allowed', 'denied', 'cancelled']),
  /** Who answered, escaped and cut. */
  by: Line(128),
});

/** A run ended (when the device asked to hear of it). */
export const RunPushSchema = v.object({
  v: v.literal(PUSH_PAYLOAD_VERSION),
  type: v.literal('run'),
  hostId: HostId,
  sessionId: Id,
  title: Line(MAX_PUSH_TITLE),
  status: v.picklist(['done', 'error']),
  /** The error, one line, escaped and cut. */
  text: Line(MAX_PUSH_SUMMARY + 64),
});

/** A session waits for the person (a wrapped program's question, a run at its limit or its budget): opens it. */
export const WaitingPushSchema = v.object({
  v: v.literal(PUSH_PAYLOAD_VERSION),
  type: v.literal('waiting'),
  hostId: HostId,
  sessionId: Id,
  title: Line(MAX_PUSH_TITLE),
  reason: v.picklist(['question', 'limit', 'budget']),
  /** What it waits on, one line, escaped and cut. */
  text: Line(MAX_PUSH_SUMMARY + 64),
});

export const PushPayloadSchema = v.variant('type', [
  ApprovalPushSchema,
  ResolvedPushSchema,
  RunPushSchema,
  WaitingPushSchema,
]);

export type ApprovalPush = v.InferOutput<typeof ApprovalPushSchema>;
export type ResolvedPush = v.InferOutput<typeof ResolvedPushSchema>;
export type RunPush = v.InferOutput<typeof RunPushSchema>;
export type WaitingPush = v.InferOutput<typeof WaitingPushSchema>;
export type PushPayload = v.InferOutput<typeof PushPayloadSchema>;

/** Decodes a push message's text; undefined for anything that is not a payload of this version. */
export function decodePushPayload(text: string): PushPayload | undefined {
  const parsed = v.safeParse(PushPayloadSchema, parsePushText(text, MAX_PUSH_PAYLOAD_BYTES));
  return parsed.success ? parsed.output : undefined;
}

/** A push message's JSON: undefined when its text is over `maxBytes` or not JSON. */
export function parsePushText(text: string, maxBytes: number): unknown {
  if (utf8Encode(text).length > maxBytes) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The JSON of a payload, or undefined when it would be over MAX_PUSH_PAYLOAD_BYTES. */
export function encodePushPayload(payload: PushPayload): Uint8Array | undefined {
  const bytes = utf8Encode(JSON.stringify(payload));
  return bytes.length <= MAX_PUSH_PAYLOAD_BYTES ? bytes : undefined;
}
