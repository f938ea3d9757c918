import { fromBase64Url, fromBase64UrlExact, toBase64Url, utf8Decode, utf8Encode } from './encoding.js';
import type { Result } from './errors.js';
import { fail, ok } from './errors.js';
import { KEY_BYTES } from './key-sizes.js';
import { PAIRING_LINK_VERSION } from './version.js';

/**
 * The pairing link a QR code carries:
 *
 *   <base>/#pair=<version>.<hostBoxPublicKey>.<pairingId>.<pairingKey>[.<relay>]
 *
 * Every secret is in the fragment, which a browser never sends to any server. Fields are
 * base64url; `relay` is base64url of `<hostId>@<relay origin>` for hosts reached through a relay.
 */
export interface PairingLink {
  /** Where the app is served, e.g. `https://laptop.tail1234.ts.net:7420`, without a trailing slash. */
  base: string;
  hostBoxPublicKey: Uint8Array;
  /** 16 bytes naming the link on the host; not secret. */
  pairingId: Uint8Array;
  /** 32 random bytes, single use: seals the pair request and reply. */
  pairingKey: Uint8Array;
  relay?: RelayHint;
}

export interface RelayHint {
  hostId: string;
  url: string;
}

export const PAIRING_ID_BYTES = 16;
const FIELD_LENGTHS = [43, 22, 43] as const;
const MAX_LINK_LENGTH = 2048;

export function formatPairingLink(link: PairingLink): string {
  const fields = [
    String(PAIRING_LINK_VERSION),
    toBase64Url(link.hostBoxPublicKey),
    toBase64Url(link.pairingId),
    toBase64Url(link.pairingKey),
  ];
  if (link.relay) fields.push(toBase64Url(utf8Encode(`${link.relay.hostId}@${link.relay.url}`)));
  return `${link.base.replace(/\/+$/, '')}/#pair=${fields.join('.')}`;
}

/**
 * Parses a whole link or just its fragment (`#pair=…`). Every failure is a typed error:
 * `link-malformed`, `link-truncated` (fields missing or cut short, as from a partial scan) or
 * `link-version` (made by a newer Tether than this one).
 */
export function parsePairingLink(input: string): Result<PairingLink> {
  const text = input.trim();
  if (text.length > MAX_LINK_LENGTH) return fail('link-malformed', 'the pairing link is too long');
  const hash = text.indexOf('#');
  if (hash < 0) return fail('link-malformed', 'not a pairing link: it has no #pair= part');
  const fragment = text.slice(hash + 1);
  if (!fragment.startsWith('pair=')) {
    return 'pair='.startsWith(fragment)
      ? fail('link-truncated', 'the pairing link is cut short')
      : fail('link-malformed', 'not a pairing link: it has no #pair= part');
  }
  const base = text.slice(0, hash).replace(/\/+$/, '');
  if (base !== '' && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(base)) {
    return fail('link-malformed', 'the pairing link does not start with an http(s) address');
  }
  const fields = fragment.slice('pair='.length).split('.');
  const versionText = fields[0] ?? '';
  if (versionText === '') return fail('link-truncated', 'the pairing link is cut short');
  if (!/^[0-9]{1,4}$/.test(versionText)) return fail('link-malformed', 'the pairing link version is not a number');
  const version = Number(versionText);
  if (version !== PAIRING_LINK_VERSION) {
    return version > PAIRING_LINK_VERSION
      ? fail(
          'link-version',
          `this link is version ${version}; this app understands version ${PAIRING_LINK_VERSION}: update the app`,
        )
      : fail('link-malformed', `pairing link version ${version} is not valid`);
  }
  if (fields.length > 5) return fail('link-malformed', 'the pairing link has too many parts');
  const decoded: Uint8Array[] = [];
  for (let i = 0; i < FIELD_LENGTHS.length; i++) {
    const field = fields[i + 1];
    const want = FIELD_LENGTHS[i]!;
    if (field === undefined) return fail('link-truncated', 'the pairing link is cut short');
    if (field.length < want && fields.length === i + 2 && /^[A-Za-z0-9_-]*$/.test(field)) {
      return fail('link-truncated', 'the pairing link is cut short');
    }
    const bytes = field.length === want ? fromBase64Url(field) : undefined;
    if (!bytes) return fail('link-malformed', 'the pairing link holds an invalid key');
    decoded.push(bytes);
  }
  const [hostBoxPublicKey, pairingId, pairingKey] = decoded as [Uint8Array, Uint8Array, Uint8Array];
  if (
    hostBoxPublicKey.length !== KEY_BYTES ||
    pairingId.length !== PAIRING_ID_BYTES ||
    pairingKey.length !== KEY_BYTES
  ) {
    return fail('link-malformed', 'the pairing link holds an invalid key');
  }
  const link: PairingLink = { base, hostBoxPublicKey, pairingId, pairingKey };
  const relayField = fields[4];
  if (relayField !== undefined) {
    const relay = decodeRelayHint(relayField);
    if (!relay) return fail('link-malformed', 'the pairing link names an invalid relay');
    link.relay = relay;
  }
  return ok(link);
}

function decodeRelayHint(field: string): RelayHint | undefined {
  const bytes = fromBase64Url(field);
  const text = bytes && utf8Decode(bytes);
  if (!text) return undefined;
  const at = text.indexOf('@');
  const hostId = text.slice(0, at);
  const url = text.slice(at + 1);
  if (at !== 22 || !fromBase64UrlExact(hostId, 16)) return undefined;
  if (!isRelayUrl(url)) return undefined;
  return { hostId, url };
}

/**
 * A relay a link may name: HTTPS (a phone needs a secure context), or plain HTTP on this device's
 * own loopback address, which browsers also treat as secure (a relay run on the same computer,
 * as tests do).
 */
export function isRelayUrl(url: string): boolean {
  return (
    /^(https|wss):\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(url) ||
    /^(http|ws):\/\/(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])(:\d{1,5})?(\/[^\s?#]*)?$/.test(url)
  );
}
