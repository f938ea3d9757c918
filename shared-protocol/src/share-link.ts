import nacl from 'tweetnacl';
import { concatBytes, fromBase64Url, toBase64Url, utf8Decode, utf8Encode } from './encoding.js';
import type { Result } from './errors.js';
import { fail, ok } from './errors.js';
import type { BoxKeyPair } from './identity.js';
import { hostIdFromSignKey } from './identity.js';
import { DEVICE_ID_BYTES, KEY_BYTES } from './key-sizes.js';
import { isRelayUrl } from './pairing-link.js';
import { RELAY_TICKET_BYTES } from './relay/relay-ticket.js';
import { SHARE_LINK_VERSION } from './version.js';

/**
 * A share link: one session, read-only, for whoever holds it.
 *
 *   <base>/#view=<version>.<hostBoxPublicKey>.<linkId>.<viewerSecret>.<sessionId>[.<relay>]
 *   relay = base64url( hostSignPublicKey(32) | relay ticket(105) | relay URL (UTF-8) )
 *
 * Like the pairing link, every secret is in the fragment, which a browser sends to no server. The
 * viewer's X25519 key pair is derived from `viewerSecret` (`viewerKeyPair`), so the host keeps only
 * its public key, as it does a device's; `linkId` is the id the viewer's hello names. `sessionId` is
 * base64url of its text. `relay`, when the host has one, lets the page reach the host through it:
 * the host's signing key (the relay checks the ticket against it) and a ticket naming `linkId` that
 * ends when the link does.
 */
export interface ShareLink {
  /** Where the app is served, without a trailing slash. */
  base: string;
  hostBoxPublicKey: Uint8Array;
  /** 16 bytes: names the link on the host, as a device id names a device. */
  linkId: Uint8Array;
  /** 32 random bytes the viewer's key pair is derived from. */
  secret: Uint8Array;
  sessionId: string;
  relay?: ShareRelay;
}

export interface ShareRelay {
  url: string;
  hostSignPublicKey: Uint8Array;
  /** The relay ticket's bytes. */
  ticket: Uint8Array;
}

const FIELD_LENGTHS = [43, 22, 43] as const;
const MAX_LINK_LENGTH = 4096;
const KEY_LABEL = utf8Encode('tether/1 share viewer key');

/** The viewer's key pair for a link's secret: X25519 with SHA-512(label | secret)[0..32] as its secret key. */
export function viewerKeyPair(secret: Uint8Array): BoxKeyPair {
  return nacl.box.keyPair.fromSecretKey(nacl.hash(concatBytes(KEY_LABEL, secret)).slice(0, KEY_BYTES));
}

/** What a client needs to connect as a link's viewer: the id its hello names, its key, the host's key. */
export function viewerIdentity(link: ShareLink): {
  deviceId: string;
  deviceKeys: BoxKeyPair;
  hostBoxPublicKey: Uint8Array;
} {
  return {
    deviceId: toBase64Url(link.linkId),
    deviceKeys: viewerKeyPair(link.secret),
    hostBoxPublicKey: link.hostBoxPublicKey,
  };
}

export function formatShareLink(link: ShareLink): string {
  const fields = [
    String(SHARE_LINK_VERSION),
    toBase64Url(link.hostBoxPublicKey),
    toBase64Url(link.linkId),
    toBase64Url(link.secret),
    toBase64Url(utf8Encode(link.sessionId)),
  ];
  if (link.relay) {
    const { hostSignPublicKey, ticket, url } = link.relay;
    fields.push(toBase64Url(concatBytes(hostSignPublicKey, ticket, utf8Encode(url))));
  }
  return `${link.base.replace(/\/+$/, '')}/#view=${fields.join('.')}`;
}

/** True when a URL or fragment is a share link (it may still not parse). */
export function isShareLink(input: string): boolean {
  const hash = input.indexOf('#');
  return hash >= 0 && input.startsWith('view=', hash + 1);
}

/**
 * Parses a whole link or its fragment (`#view=…`), with the same typed errors as a pairing link:
 * `link-malformed`, `link-truncated` (cut short, as by a partial copy) or `link-version`.
 */
export function parseShareLink(input: string): Result<ShareLink> {
  const text = input.trim();
  if (text.length > MAX_LINK_LENGTH) return fail('link-malformed', 'the share link is too long');
  const hash = text.indexOf('#');
  if (hash < 0 || !text.startsWith('view=', hash + 1)) {
    return fail('link-malformed', 'not a share link: it has no #view= part');
  }
  const base = text.slice(0, hash).replace(/\/+$/, '');
  if (base !== '' && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(base)) {
    return fail('link-malformed', 'the share link does not start with an http(s) address');
  }
  const fields = text.slice(hash + 1 + 'view='.length).split('.');
  const versionText = fields[0] ?? '';
  if (versionText === '') return fail('link-truncated', 'the share link is cut short');
  if (!/^[0-9]{1,4}$/.test(versionText)) return fail('link-malformed', 'the share link version is not a number');
  const version = Number(versionText);
  if (version !== SHARE_LINK_VERSION) {
    return version > SHARE_LINK_VERSION
      ? fail('link-version', `this link is version ${version}; this app understands ${SHARE_LINK_VERSION}: update it`)
      : fail('link-malformed', `share link version ${version} is not valid`);
  }
  if (fields.length > 6) return fail('link-malformed', 'the share link has too many parts');
  const keys: Uint8Array[] = [];
  for (let i = 0; i < FIELD_LENGTHS.length; i++) {
    const field = fields[i + 1];
    if (field === undefined || (field.length < FIELD_LENGTHS[i]! && fields.length === i + 2)) {
      return fail('link-truncated', 'the share link is cut short');
    }
    const bytes = field.length === FIELD_LENGTHS[i] ? fromBase64Url(field) : undefined;
    if (!bytes) return fail('link-malformed', 'the share link holds an invalid key');
    keys.push(bytes);
  }
  const [hostBoxPublicKey, linkId, secret] = keys as [Uint8Array, Uint8Array, Uint8Array];
  if (hostBoxPublicKey.length !== KEY_BYTES || linkId.length !== DEVICE_ID_BYTES || secret.length !== KEY_BYTES) {
    return fail('link-malformed', 'the share link holds an invalid key');
  }
  const sessionField = fields[4];
  if (sessionField === undefined || sessionField === '') return fail('link-truncated', 'the share link is cut short');
  const sessionBytes = fromBase64Url(sessionField);
  const sessionId = sessionBytes && utf8Decode(sessionBytes);
  if (!sessionId || !/^[A-Za-z0-9_.:-]{1,64}$/.test(sessionId)) {
    return fail('link-malformed', 'the share link names an invalid session');
  }
  const link: ShareLink = { base, hostBoxPublicKey, linkId, secret, sessionId };
  if (fields[5] !== undefined) {
    const relay = decodeShareRelay(fields[5]);
    if (!relay) return fail('link-malformed', 'the share link names an invalid relay');
    link.relay = relay;
  }
  return ok(link);
}

function decodeShareRelay(field: string): ShareRelay | undefined {
  const bytes = fromBase64Url(field);
  if (!bytes || bytes.length <= KEY_BYTES + RELAY_TICKET_BYTES) return undefined;
  const url = utf8Decode(bytes.subarray(KEY_BYTES + RELAY_TICKET_BYTES));
  if (!url || !isRelayUrl(url)) return undefined;
  return {
    url,
    hostSignPublicKey: bytes.slice(0, KEY_BYTES),
    ticket: bytes.slice(KEY_BYTES, KEY_BYTES + RELAY_TICKET_BYTES),
  };
}

/** The host id a share link's relay part names (from its signing key), for the relay's URL. */
export function shareLinkHostId(relay: ShareRelay): string {
  return hostIdFromSignKey(relay.hostSignPublicKey);
}
