import * as v from 'valibot';
import { Count, Id, Name, Timestamp } from './common.js';

/**
 * `share.*`: a read-only link to one session. Whoever holds the link connects like a device (the
 * same handshake, with a key the host minted for the link) and gets the scope `view:<session>`:
 * that session's transcript, live, masked as the lock screen is, and nothing else.
 */

/** How long a link works. */
export const SHARE_EXPIRIES = ['1h', '1d', '7d'] as const;
export const ShareExpirySchema = v.picklist(SHARE_EXPIRIES);
export type ShareExpiry = (typeof SHARE_EXPIRIES)[number];
export const DEFAULT_SHARE_EXPIRY: ShareExpiry = '1d';
export const SHARE_EXPIRY_MS: Readonly<Record<ShareExpiry, number>> = {
  '1h': 60 * 60 * 1000,
  '1d': 24 * 60 * 60 * 1000,
  '7d': 7 * 24 * 60 * 60 * 1000,
};

/** Links of one session that work at once: more is `busy` until one is revoked or expires. */
export const MAX_SHARE_LINKS_PER_SESSION = 16;
/** Viewers connected through one link at once: a meeting room's worth; more are refused `busy`. */
export const MAX_VIEWERS_PER_LINK = 256;
/** Viewers connected at once over every link: their own pool, apart from the devices' 64, so that
 * viewers never take a paired device's place; more are refused `busy`. */
export const MAX_VIEWERS = 384;
/** Characters of a link's name ("for the review"), as typed; kept with hidden characters as marks. */
export const MAX_SHARE_NAME = 64;

/** The scope a link grants: `view:<session id>`. */
export type ViewScope = `view:${string}`;
export const viewScope = (sessionId: string): ViewScope => `view:${sessionId}`;

export const SHARE_LINK_STATES = ['active', 'expired', 'revoked'] as const;

export const ShareLinkInfoSchema = v.object({
  id: Id,
  sessionId: Id,
  /** `view:<sessionId>`. */
  scope: v.pipe(v.string(), v.maxLength(70)),
  /** The name given at making, hidden characters as marks; may be empty. */
  name: Name,
  /** Whether viewers see the photos and files sent with messages. */
  includePhotos: v.boolean(),
  /** Who made it: `this computer`, or the label of the device that did. */
  createdBy: Name,
  createdAt: Timestamp,
  expiresAt: Timestamp,
  revokedAt: v.nullable(Timestamp),
  /** When a viewer last connected or was sent something through it. */
  lastSeenAt: v.nullable(Timestamp),
  /** Viewers connected through it now. */
  viewers: Count,
  state: v.picklist(SHARE_LINK_STATES),
});
export type ShareLinkInfo = v.InferOutput<typeof ShareLinkInfoSchema>;

const ShareUrl = v.pipe(v.string(), v.maxLength(4096));

export const CreateShareParams = v.object({
  sessionId: Id,
  expires: v.optional(ShareExpirySchema),
  name: v.optional(v.pipe(v.string(), v.maxLength(MAX_SHARE_NAME))),
  includePhotos: v.optional(v.boolean()),
});
export const CreateShareResult = v.object({
  link: ShareLinkInfoSchema,
  /**
   * The link: on the host's own page when it listens, else on its relay's. Shown once: the host
   * keeps only the viewer's public key, never the secret in the link.
   */
  url: ShareUrl,
  /** The same link on the relay's page, for a viewer who cannot reach the host's (a relay that
   * serves the app: whoever runs it is trusted with what the page shows). */
  relayUrl: v.optional(ShareUrl),
});
export const ListSharesParams = v.object({ sessionId: v.optional(Id) });
export const ListSharesResult = v.object({ links: v.array(ShareLinkInfoSchema) });
export const RevokeShareParams = v.object({ id: Id });
export const RevokeShareResult = v.object({ closedConnections: Count });

/** What `host.info` tells a viewer about its link (absent for a paired device). */
export const ViewGrantSchema = v.object({
  sessionId: Id,
  scope: v.pipe(v.string(), v.maxLength(70)),
  name: Name,
  includePhotos: v.boolean(),
  expiresAt: Timestamp,
});
export type ViewGrant = v.InferOutput<typeof ViewGrantSchema>;
