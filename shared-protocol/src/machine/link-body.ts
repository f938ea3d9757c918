import { readUint64, writeUint64 } from '../encoding.js';

/**
 * The bytes of a reply, sent as binary chunks ahead of it. A reply whose result has a `body`
 * (a file's contents) sends the body as body frames and then the JSON reply with `body` set to
 * the body's length; the receiver joins the chunks back into the result. No JSON string and no
 * base64 ever holds the bytes, and each chunk is sealed on its own, so no frame is near the
 * link's cap.
 *
 *   plaintext = 0x00 | request id (8, big-endian) | bytes
 *
 * A JSON message always starts with `{` (0x7b), so the first byte tells the two apart. Chunks of
 * one reply arrive in order (a link is one ordered stream) and only for a request still waiting;
 * anything else ends the link as a protocol error.
 */

export const LINK_BODY_TAG = 0x00;
export const LINK_BODY_HEADER_BYTES = 1 + 8;
/** Bytes of a body in one frame: 256 KiB, so a 1 MiB read is four frames and the largest read
 * (MAX_LINK_BODY_BYTES) eight. Each frame costs a WebSocket message, an event turn and a copy
 * when chunks are joined (a 1 MiB read took 6.1–6.7 ms p50 in 64 KiB frames, 3.2–3.3 ms in one,
 * both ends in one process), but with the machine in its own process, as it runs, the host opens
 * one frame while the machine reads and seals the next: 1.72–1.74× a local read in 256 KiB frames
 * against 1.65–2.10× in 1 MiB ones, alternating builds on an idle machine. Another call's output
 * waits behind at most one frame: under 3 ms at 100 MB/s. */
export const LINK_BODY_CHUNK_BYTES = 256 * 1024;

export interface BodyChunk {
  id: number;
  data: Uint8Array;
}

/** The 9 bytes before a chunk's data: the sealer takes them and the data as two parts, so a
 * chunk is not copied behind its header first. */
export function bodyChunkHeader(id: number): Uint8Array {
  const out = new Uint8Array(LINK_BODY_HEADER_BYTES);
  out[0] = LINK_BODY_TAG;
  out.set(writeUint64(id), 1);
  return out;
}

export function encodeBodyChunk(id: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(LINK_BODY_HEADER_BYTES + data.length);
  out.set(bodyChunkHeader(id));
  out.set(data, LINK_BODY_HEADER_BYTES);
  return out;
}

/** A body chunk, or undefined when the plaintext is not one (a JSON message, or malformed). */
export function decodeBodyChunk(plain: Uint8Array): BodyChunk | undefined {
  if (plain.length < LINK_BODY_HEADER_BYTES || plain[0] !== LINK_BODY_TAG) return undefined;
  const id = readUint64(plain, 1);
  if (id === undefined) return undefined;
  return { id, data: plain.subarray(LINK_BODY_HEADER_BYTES) };
}

/** The result's body, when it has one: a Uint8Array under `body` of a plain object. */
export function bodyOf(result: unknown): Uint8Array | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const body = (result as { body?: unknown }).body;
  return body instanceof Uint8Array ? body : undefined;
}

/**
 * One waiting request's chunks as they arrive, bounded by `maxBytes`: past it `add` refuses, and
 * the caller ends the link (the other side sent more than any reply may hold).
 */
export class BodyAssembler {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;

  constructor(private readonly maxBytes: number) {}

  get bytes(): number {
    return this.length;
  }

  add(data: Uint8Array): boolean {
    if (this.length + data.length > this.maxBytes) return false;
    // The opened plaintext is this chunk's own buffer: kept as it is, copied once at the end.
    this.chunks.push(data);
    this.length += data.length;
    return true;
  }

  join(): Uint8Array {
    if (this.chunks.length === 1) return this.chunks[0]!;
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }
}
