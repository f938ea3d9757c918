/**
 * Sizes of sealed frames (sealed-frame.ts), in a file without tweetnacl behind it: code that only
 * needs a size (the relay's limits, the app's first screen) does not load the crypto.
 *
 *   frame = 0x03 | keyTag(4) | counter(8) | secretbox(plaintext)
 */
export const FRAME_HEADER_BYTES = 1 + 4 + 8;
/**
 * The Poly1305 tag of a secretbox or box: `nacl.secretbox.overheadLength` (a test says they agree),
 * written as a number so that sizes can be known without loading tweetnacl.
 */
export const BOX_OVERHEAD = 16;
export const FRAME_OVERHEAD = FRAME_HEADER_BYTES + BOX_OVERHEAD;
