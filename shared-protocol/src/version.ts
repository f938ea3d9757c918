/**
 * The protocol's version, carried in every handshake, one-shot call and pairing message.
 *
 * Compatibility rule: the version changes only for an incompatible change (a frame layout, a key
 * derivation, a changed meaning). Both ends must speak the same version; anything else is refused
 * with `version-unsupported`, naming both. Additions that old peers can ignore (a new method, a new
 * event type, a new optional field) do not change it: a new method answers `unknown-method` on an
 * older host, an unknown event type is counted and skipped by an older client.
 */
export const PROTOCOL_VERSION = 2;

/** The pairing link's own layout version (the `1.` after `#pair=`). */
export const PAIRING_LINK_VERSION = 1;

/** The share link's own layout version (the `1.` after `#view=`). */
export const SHARE_LINK_VERSION = 1;
