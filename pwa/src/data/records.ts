import {
  AttachmentName,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS_PER_MESSAGE,
  AgentInfoSchema,
  ClientMessageId,
  ErrorCodeSchema,
  MAX_MESSAGE_TEXT,
  RelayDetailsSchema,
  ScopeSchema,
  SessionSummarySchema,
} from '@tether/shared-protocol';
import * as v from 'valibot';
import { TranscriptStateSchema } from '../transcript/transcript-schema.js';

/**
 * What the app keeps in IndexedDB, as valibot schemas: every read is decoded with these before
 * use (a record from an older app or a damaged one is skipped, never trusted as it is).
 */

const Key = v.pipe(v.string(), v.length(43), v.regex(/^[A-Za-z0-9_-]+$/));
const Id22 = v.pipe(v.string(), v.length(22), v.regex(/^[A-Za-z0-9_-]+$/));
const Name = v.pipe(v.string(), v.maxLength(256));
const Time = v.pipe(v.number(), v.integer(), v.minValue(0));
const HttpBase = v.pipe(v.string(), v.maxLength(2048), v.regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/));

/**
 * How this device's key for a host is kept (net/device-key.ts chooses at pairing, by what the
 * browser's storage really gives back):
 * - `webcrypto`: a non-extractable X25519 `CryptoKey`, stored as it is (Chromium, Firefox);
 * - `wrapped`: the X25519 secret key encrypted (AES-GCM key wrap) under a non-extractable AES
 *   `CryptoKey` stored beside it, for browsers that can use X25519 keys but cannot store them
 *   (WebKit, so Safari);
 * - `raw`: the secret key itself, base64url: the fallback where WebCrypto is missing (plain HTTP).
 */
export const KeyStorageSchema = v.picklist(['webcrypto', 'wrapped', 'raw']);
export type KeyStorage = v.InferOutput<typeof KeyStorageSchema>;

/**
 * A device secret key kept by WebCrypto: an X25519 `CryptoKey` that cannot be exported, stored
 * by structured clone (IndexedDB keeps it as it is, never its bytes), with its public key.
 */
const WebCryptoDeviceKey = v.object({
  privateKey: v.custom<CryptoKey>(
    (key) =>
      isCryptoKey(key) &&
      key.type === 'private' &&
      key.algorithm.name === 'X25519' &&
      !key.extractable &&
      key.usages.includes('deriveBits'),
    'not a non-extractable X25519 private key',
  ),
  publicKey: Key,
});

/** The AES-GCM IV of a wrapped key: 12 bytes, base64url. */
const Iv = v.pipe(v.string(), v.length(16), v.regex(/^[A-Za-z0-9_-]+$/));
/** A wrapped PKCS #8 X25519 key: 48 bytes and a 16-byte tag (64) in practice; bounded well above. */
const Wrapped = v.pipe(v.string(), v.minLength(1), v.maxLength(512), v.regex(/^[A-Za-z0-9_-]+$/));

/**
 * A device secret key kept wrapped: the PKCS #8 X25519 key encrypted under `wrappingKey`, an
 * AES-GCM key that cannot be exported and can only unwrap (the app unwraps it at start into a
 * non-extractable X25519 key, kept in memory).
 */
const WrappedDeviceKey = v.object({
  wrappingKey: v.custom<CryptoKey>(
    (key) =>
      isCryptoKey(key) &&
      key.type === 'secret' &&
      key.algorithm.name === 'AES-GCM' &&
      !key.extractable &&
      key.usages.includes('unwrapKey'),
    'not a non-extractable AES-GCM unwrapping key',
  ),
  iv: Iv,
  wrapped: Wrapped,
  publicKey: Key,
});

function isCryptoKey(key: unknown): key is CryptoKey {
  return typeof CryptoKey !== 'undefined' && key instanceof CryptoKey;
}

/** Recent folders kept per host for "New session". */
export const MAX_RECENT_FOLDERS = 8;

export const HostInfoCacheSchema = v.object({
  version: Name,
  models: v.array(Name),
  defaultModel: Name,
  roots: v.array(v.pipe(v.string(), v.maxLength(4096))),
  features: v.array(Name),
  /** The ACP agents the host offered when last seen (absent from older records). */
  agents: v.optional(v.array(AgentInfoSchema)),
});

const HostRecordFields = v.object({
  hostId: Id22,
  /** The name the host gave itself; `customName` is the person's rename, shown instead. */
  name: Name,
  customName: v.optional(Name),
  /** Where the host's `/rc/*` endpoints are: the origin the pairing link came from. */
  apiBase: HttpBase,
  /** From the link, for hosts behind a relay (kept for when the app speaks to relays). */
  relayHint: v.optional(v.object({ hostId: Id22, url: v.pipe(v.string(), v.maxLength(2048)) })),
  relay: v.optional(RelayDetailsSchema),
  deviceId: Id22,
  /** How this device's key for the host is kept: one of the three fields below. Absent from
   * records written before it was recorded, which held `deviceKey` or `deviceSecretKey` only. */
  keyStorage: v.optional(KeyStorageSchema),
  deviceKey: v.optional(WebCryptoDeviceKey),
  deviceWrappedKey: v.optional(WrappedDeviceKey),
  deviceSecretKey: v.optional(Key),
  hostBoxPublicKey: Key,
  hostSignPublicKey: Key,
  scopes: v.array(ScopeSchema),
  pairedAt: Time,
  lastSeenAt: v.nullable(Time),
  /** Set when the host refused this device for good (revoked, unknown): it must pair again. */
  refused: v.optional(v.object({ code: ErrorCodeSchema, message: v.pipe(v.string(), v.maxLength(2000)), at: Time })),
  info: v.optional(HostInfoCacheSchema),
  recentFolders: v.pipe(v.array(v.pipe(v.string(), v.maxLength(4096))), v.maxLength(MAX_RECENT_FOLDERS)),
});

/** Which field holds the device key in each way of keeping it. */
const KEY_FIELD = { webcrypto: 'deviceKey', wrapped: 'deviceWrappedKey', raw: 'deviceSecretKey' } as const;

export const HostRecordSchema = v.pipe(
  HostRecordFields,
  v.check(
    (record) => Object.values(KEY_FIELD).filter((field) => record[field] !== undefined).length === 1,
    'a host record holds exactly one device key',
  ),
  // A record from before `keyStorage` names the way its key field says.
  v.transform((record) => ({
    ...record,
    keyStorage: record.keyStorage ?? (record.deviceKey ? ('webcrypto' as const) : ('raw' as const)),
  })),
  v.check((record) => record[KEY_FIELD[record.keyStorage]] !== undefined, 'keyStorage names a key the record lacks'),
);

export type HostRecord = v.InferOutput<typeof HostRecordSchema>;
export type HostInfoCache = v.InferOutput<typeof HostInfoCacheSchema>;

export const SessionListCacheSchema = v.object({
  hostId: Id22,
  sessions: v.array(SessionSummarySchema),
  savedAt: Time,
});

export type SessionListCache = v.InferOutput<typeof SessionListCacheSchema>;

export const TranscriptCacheSchema = v.object({
  key: v.string(),
  hostId: Id22,
  sessionId: v.string(),
  state: TranscriptStateSchema,
  savedAt: Time,
});

export type TranscriptCache = v.InferOutput<typeof TranscriptCacheSchema>;

export function hostDisplayName(host: Pick<HostRecord, 'name' | 'customName'>): string {
  return host.customName?.trim() || host.name || 'Computer';
}

/** A file waiting in the outbox with its message: its name, type and bytes. */
export const OutboxFileSchema = v.object({
  name: AttachmentName,
  type: v.pipe(v.string(), v.maxLength(100)),
  bytes: v.pipe(
    v.instance(Uint8Array),
    v.check((b) => b.length <= MAX_ATTACHMENT_BYTES, 'too large'),
  ),
});
export type OutboxFile = v.InferOutput<typeof OutboxFileSchema>;

/**
 * A message typed for a computer and not yet taken by it (the outbox). `id` is the message's own
 * id (`clientMessageId`), so a resend is taken once; `failed` says why the computer refused it
 * (it is then kept until the person discards it, and not sent again).
 */
export const OutboxRecordSchema = v.pipe(
  v.object({
    id: ClientMessageId,
    hostId: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
    sessionId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
    text: v.pipe(v.string(), v.maxLength(MAX_MESSAGE_TEXT)),
    createdAt: Time,
    failed: v.optional(v.pipe(v.string(), v.maxLength(1000))),
    /** Photos and files, as bytes until the computer has them (downscaled, so small). */
    attachments: v.optional(v.pipe(v.array(OutboxFileSchema), v.maxLength(MAX_ATTACHMENTS_PER_MESSAGE))),
  }),
  v.check((r) => r.text !== '' || (r.attachments?.length ?? 0) > 0, 'a message has text or an attachment'),
);
export type OutboxRecord = v.InferOutput<typeof OutboxRecordSchema>;
