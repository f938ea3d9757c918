import { fromHex, toHex } from '../encoding.js';
import type { RelayFrame } from '../relay/relay-frame.js';
import { encodeRelayFrame } from '../relay/relay-frame.js';

/** Bytes from a vector's hex; a vector that is not hex is a broken file, so it throws. */
export const hex = (h: string): Uint8Array => {
  const b = fromHex(h);
  if (!b) throw new Error(`bad hex in vectors: ${h.slice(0, 16)}`);
  return b;
};

/** A relay frame's encoding, in hex; a frame that does not encode is a broken vector, so it throws. */
export function encoded(frame: RelayFrame): string {
  const r = encodeRelayFrame(frame);
  if (!r.ok) throw new Error(`relay vector ${frame.type}: ${r.error.message}`);
  return toHex(r.value);
}
