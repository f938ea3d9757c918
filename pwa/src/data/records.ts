import {
  AgentInfoSchema,
  ErrorCodeSchema,
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
 * A device secret key kept by WebCrypto: an X25519 `CryptoKey` that cannot be exported, stored
 * by structured clone (IndexedDB keeps it as it is, never its bytes), with its public key.
 */
const WebCryptoDeviceKey = v.object({
  privateKey: v.custom<CryptoKey>(
    (key) =>
      typeof CryptoKey !== 'undefined' &&
      key instanceof CryptoKey &&
      key.type === 'private' &&
      key.algorithm.name === 'X25519' &&
      !key.extractable &&
      key.usages.includes('deriveBits'),
    'not a non-extractable X25519 private key',
  ),
  publicKey: Key,
});

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
  /** This device's key for the host, in one of two forms (net/device-key.ts): a non-extractable
   * WebCrypto key where the browser has X25519, else the raw secret key (the fallback). */
  deviceKey: v.optional(WebCryptoDeviceKey),
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

export const HostRecordSchema = v.pipe(
  HostRecordFields,
  v.check(
    (record) => (record.deviceKey === undefined) !== (record.deviceSecretKey === undefined),
    'a host record holds exactly one device key',
  ),
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
