import * as v from 'valibot';
import type { Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import { MAX_FRAME_PLAINTEXT } from '../limits.js';
import { TERMINAL_OUTPUT_TAG } from './terminal-output-frame.js';

/**
 * Several host → device messages in one sealed frame, for a device that said it takes them
 * (`channel.batch`): a burst of events costs one seal, one open and one write instead of one each.
 *
 *   plaintext = 0x02 | count (2, big-endian) | count × ( length (4, big-endian) | message )
 *
 * Each message is what a frame of its own would hold: a JSON channel message (it starts with `{`)
 * or a binary terminal-output message (0x01). A batch holds 2 to MAX_BATCH_MESSAGES of them, never
 * another batch, and its lengths add up to the plaintext exactly. The whole batch is one frame, so
 * it is at most MAX_FRAME_PLAINTEXT like any other (the opener refuses a larger one before
 * decryption). A batch that breaks any of these rules is refused whole (`frame-malformed`, or
 * `frame-too-large` for too many messages), never half read.
 */

export const BATCH_TAG = 0x02;
/** Messages in one batch, at most: a burst longer than this goes out as several batches. */
export const MAX_BATCH_MESSAGES = 256;
/** `channel.batch`'s answer: the host sends batches on this connection from now on, of at most
 * `maxMessages` messages each. */
export const BatchOfferResult = v.object({ maxMessages: v.pipe(v.number(), v.integer(), v.minValue(2)) });

/** Tag and count. */
export const BATCH_HEADER_BYTES = 1 + 2;
/** The length in front of each message. */
export const BATCH_ENTRY_BYTES = 4;

/** The bytes a batch of messages of these sizes takes, tag and lengths included. */
export function batchBytes(messages: number, messageBytes: number): number {
  return BATCH_HEADER_BYTES + messages * BATCH_ENTRY_BYTES + messageBytes;
}

/**
 * The plaintext of a batch as parts, for a sealer that takes parts (no copy of the messages);
 * the caller keeps within MAX_BATCH_MESSAGES and MAX_FRAME_PLAINTEXT.
 */
export function encodeBatch(messages: readonly Uint8Array[]): Uint8Array[] {
  const header = new Uint8Array(BATCH_HEADER_BYTES + messages.length * BATCH_ENTRY_BYTES);
  const view = new DataView(header.buffer);
  header[0] = BATCH_TAG;
  view.setUint16(1, messages.length);
  const parts: Uint8Array[] = [];
  let at = BATCH_HEADER_BYTES;
  for (const message of messages) {
    view.setUint32(at, message.length);
    parts.push(header.subarray(at, at + BATCH_ENTRY_BYTES), message);
    at += BATCH_ENTRY_BYTES;
  }
  parts.unshift(header.subarray(0, BATCH_HEADER_BYTES));
  return parts;
}

/** The messages of a batch (views into `plain`), or why it is refused. */
export function decodeBatch(plain: Uint8Array): Result<Uint8Array[]> {
  if (plain.length < BATCH_HEADER_BYTES || plain[0] !== BATCH_TAG) return fail('frame-malformed', 'not a batch');
  if (plain.length > MAX_FRAME_PLAINTEXT) return fail('frame-too-large', 'batch over the frame limit');
  const view = new DataView(plain.buffer, plain.byteOffset, plain.byteLength);
  const count = view.getUint16(1);
  if (count < 2) return fail('frame-malformed', `a batch of ${count} messages`);
  if (count > MAX_BATCH_MESSAGES) {
    return fail('frame-too-large', `a batch of ${count} messages is over the ${MAX_BATCH_MESSAGES}-message limit`);
  }
  const messages: Uint8Array[] = [];
  let at = BATCH_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    if (at + BATCH_ENTRY_BYTES > plain.length) return fail('frame-malformed', 'batch cut short');
    const length = view.getUint32(at);
    at += BATCH_ENTRY_BYTES;
    if (length === 0 || length > plain.length - at) return fail('frame-malformed', 'batch entry out of bounds');
    const message = plain.subarray(at, at + length);
    if (message[0] !== 0x7b && message[0] !== TERMINAL_OUTPUT_TAG) {
      return fail('frame-malformed', 'a batch holds JSON and terminal-output messages only');
    }
    messages.push(message);
    at += length;
  }
  if (at !== plain.length) return fail('frame-malformed', 'bytes after the last message of a batch');
  return ok(messages);
}
