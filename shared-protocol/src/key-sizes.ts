/**
 * Sizes of keys and ids, in a file without tweetnacl behind it (identity.ts has it): code that only
 * needs a size (parsing a pairing link, a relay frame, on the app's first screen) does not load
 * the crypto.
 */
export const KEY_BYTES = 32;
/** Device ids are 16 random bytes, carried raw in handshakes and as base64url (22 chars) elsewhere. */
export const DEVICE_ID_BYTES = 16;
export const HOST_ID_BYTES = 16;
