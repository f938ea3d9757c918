/**
 * The platform's WebCrypto when it is there at all (not on plain HTTP). A file of its own: the
 * first screen asks for it, and device-key.ts (with tweetnacl behind it) loads later.
 */
export function platformSubtle(): SubtleCrypto | undefined {
  return typeof crypto !== 'undefined' && crypto.subtle !== undefined ? crypto.subtle : undefined;
}
