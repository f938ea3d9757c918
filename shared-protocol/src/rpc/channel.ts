import * as v from 'valibot';
import { MAX_ERROR_MESSAGE, ProtocolErrorSchema } from '../errors.js';
import type { ProtocolError } from '../errors.js';
import { jsonBytes, parseJsonBytes } from '../json.js';

/**
 * What travels inside sealed frames, as JSON:
 *
 *   {t:"req", id, method, params}     device → host
 *   {t:"res", id, result} | {t:"res", id, error}   host → device
 *   {t:"evt", event}                  host → device
 *   {t:"ping", n} / {t:"pong", n}     either way; the other side answers a ping with a pong
 *   {t:"bye", code, message}          host → device, before it closes (revoked, slow-consumer…)
 *
 * Events are decoded on their own (events.ts) so that an unknown type is skipped, not fatal.
 */

const RequestId = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));

export const ChannelMessageSchema = v.variant('t', [
  v.object({ t: v.literal('req'), id: RequestId, method: v.pipe(v.string(), v.maxLength(100)), params: v.unknown() }),
  v.object({ t: v.literal('res'), id: RequestId, error: ProtocolErrorSchema }),
  v.object({ t: v.literal('res'), id: RequestId, result: v.unknown() }),
  v.object({ t: v.literal('evt'), event: v.unknown() }),
  v.object({ t: v.literal('ping'), n: RequestId }),
  v.object({ t: v.literal('pong'), n: RequestId }),
  v.object({
    t: v.literal('bye'),
    code: ProtocolErrorSchema.entries.code,
    message: v.pipe(v.string(), v.maxLength(MAX_ERROR_MESSAGE)),
  }),
]);

export type ChannelMessage =
  | { t: 'req'; id: number; method: string; params: unknown }
  | { t: 'res'; id: number; result: unknown }
  | { t: 'res'; id: number; error: ProtocolError }
  | { t: 'evt'; event: unknown }
  | { t: 'ping'; n: number }
  | { t: 'pong'; n: number }
  | { t: 'bye'; code: ProtocolError['code']; message: string };

/**
 * Encodes a message. An error or goodbye message over the wire's limit is cut to it here, where
 * every sender passes: the other side's decoder would refuse the whole message, and a reply it
 * drops leaves its call waiting (a refusal that quotes a mangled, long parameter, say).
 */
export function encodeChannelMessage(message: ChannelMessage): Uint8Array {
  if (message.t === 'res' && 'error' in message && message.error.message.length > MAX_ERROR_MESSAGE) {
    return jsonBytes({ ...message, error: { ...message.error, message: cutMessage(message.error.message) } });
  }
  if (message.t === 'bye' && message.message.length > MAX_ERROR_MESSAGE) {
    return jsonBytes({ ...message, message: cutMessage(message.message) });
  }
  return jsonBytes(message);
}

function cutMessage(text: string): string {
  return `${text.slice(0, MAX_ERROR_MESSAGE - 1)}…`;
}

/**
 * Decodes what a frame held. Events are most of the traffic and their envelope holds nothing but
 * the event, which its receiver decodes with the event's own schema (events.ts): so an event's
 * envelope is checked here by hand (exactly `{t, event}`, as the schema would) and each event
 * goes through one schema pass, not two. Every other message goes through the schema.
 */
export function decodeChannelMessage(bytes: Uint8Array): ChannelMessage | undefined {
  const json = parseJsonBytes(bytes);
  if (!json) return undefined;
  const value = json.value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { t?: unknown }).t === 'evt') {
    return 'event' in value ? { t: 'evt', event: value.event } : undefined;
  }
  const parsed = v.safeParse(ChannelMessageSchema, value);
  return parsed.success ? parsed.output : undefined;
}
