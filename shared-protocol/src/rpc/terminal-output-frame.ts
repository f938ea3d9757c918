import { fromBase64Url, readUint64, writeUint64 } from '../encoding.js';

/**
 * A terminal's output as a binary message inside a sealed frame, for a device that asked for it
 * (`terminals.attach` with `binary: true`): the bytes as they are, with no JSON and no base64.
 *
 *   plaintext = 0x01 | id length (1) | terminal id (ASCII) | offset (8, big-endian) | output
 *
 * A JSON channel message always starts with `{` (0x7b), so the first byte tells the two apart.
 * It is the same `terminal.output` event as the JSON one, with `data` as bytes: the device
 * decodes it against the event's schema like any other event.
 */

export const TERMINAL_OUTPUT_TAG = 0x01;
/** Bytes of output in one binary message, at most: the JSON event's bound on its text. */
export const MAX_TERMINAL_OUTPUT_FRAME_BYTES = 256 * 1024;
const MAX_ID_LENGTH = 64;
const ID_PATTERN = /^[A-Za-z0-9_.:-]+$/;

export interface TerminalOutputFrame {
  terminalId: string;
  offset: number;
  data: Uint8Array;
}

/** The plaintext of one message; the id is a terminal id (short ASCII), the offset a byte count. */
export function encodeTerminalOutput(terminalId: string, offset: number, data: Uint8Array): Uint8Array {
  const idLength = terminalId.length;
  const out = new Uint8Array(2 + idLength + 8 + data.length);
  out[0] = TERMINAL_OUTPUT_TAG;
  out[1] = idLength;
  for (let i = 0; i < idLength; i++) out[2 + i] = terminalId.charCodeAt(i);
  out.set(writeUint64(offset), 2 + idLength);
  out.set(data, 2 + idLength + 8);
  return out;
}

/** The message, or undefined when the plaintext is not a well-formed one. The output is a view
 * into `plain` (the frame's own opened buffer), not a copy. */
export function decodeTerminalOutput(plain: Uint8Array): TerminalOutputFrame | undefined {
  if (plain.length < 2 || plain[0] !== TERMINAL_OUTPUT_TAG) return undefined;
  const idLength = plain[1]!;
  if (idLength === 0 || idLength > MAX_ID_LENGTH || plain.length < 2 + idLength + 8) return undefined;
  const terminalId = String.fromCharCode(...plain.subarray(2, 2 + idLength));
  if (!ID_PATTERN.test(terminalId)) return undefined;
  const offset = readUint64(plain, 2 + idLength);
  if (offset === undefined) return undefined;
  const data = plain.subarray(2 + idLength + 8);
  if (data.length > MAX_TERMINAL_OUTPUT_FRAME_BYTES) return undefined;
  return { terminalId, offset, data };
}

/** A `terminal.output` event's bytes, whichever way they came; undefined for bad base64url. */
export function terminalOutputBytes(data: string | Uint8Array): Uint8Array | undefined {
  return typeof data === 'string' ? fromBase64Url(data) : data;
}
