import { fromBase64UrlExact, toBase64Url } from '@tether/shared-protocol';
import type { Db } from './database.js';

interface Row {
  id: string;
  session_id: string;
  public_key: string;
  name: string;
  include_photos: number;
  created_by: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  last_seen_at: number | null;
}

/** A share link as the host keeps it: never the secret, only the public key derived from it. */
export interface ShareLinkRecord {
  id: string;
  sessionId: string;
  publicKey: Uint8Array;
  /** As given, hidden characters as marks (`visibleText`); may be empty. */
  name: string;
  includePhotos: boolean;
  createdBy: string;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
  lastSeenAt: number | null;
}

function fromRow(row: Row): ShareLinkRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    publicKey: fromBase64UrlExact(row.public_key, 32) ?? new Uint8Array(32),
    name: row.name,
    includePhotos: row.include_photos === 1,
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastSeenAt: row.last_seen_at,
  };
}

/** True while a link lets viewers in: not revoked, not past its end. */
export function linkWorks(link: ShareLinkRecord, now: number): boolean {
  return link.revokedAt === null && now < link.expiresAt;
}

/** Share links, kept like devices: a restart keeps them, and a revoked one stays revoked. */
export class ShareStore {
  constructor(private readonly db: Db) {}

  insert(link: Omit<ShareLinkRecord, 'revokedAt' | 'lastSeenAt'>): ShareLinkRecord {
    this.db
      .prepare(
        `INSERT INTO share_links (id, session_id, public_key, name, include_photos, created_by, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        link.id,
        link.sessionId,
        toBase64Url(link.publicKey),
        link.name,
        link.includePhotos ? 1 : 0,
        link.createdBy,
        link.createdAt,
        link.expiresAt,
      );
    return this.get(link.id)!;
  }

  get(id: string): ShareLinkRecord | undefined {
    const row = this.db.prepare('SELECT * FROM share_links WHERE id = ?').get(id) as Row | undefined;
    return row && fromRow(row);
  }

  /** Every link, or a session's, newest first. */
  list(sessionId?: string): ShareLinkRecord[] {
    const rows =
      sessionId === undefined
        ? this.db.prepare('SELECT * FROM share_links ORDER BY created_at DESC, id').all()
        : this.db.prepare('SELECT * FROM share_links WHERE session_id = ? ORDER BY created_at DESC, id').all(sessionId);
    return (rows as Row[]).map(fromRow);
  }

  /** Links of a session that still work at `now`. */
  workingCount(sessionId: string, now: number): number {
    return this.db
      .prepare('SELECT COUNT(*) FROM share_links WHERE session_id = ? AND revoked_at IS NULL AND expires_at > ?')
      .pluck()
      .get(sessionId, now) as number;
  }

  /** The soonest end after `now` of a link that still works, if any. */
  nextExpiry(now: number): number | undefined {
    const at = this.db
      .prepare('SELECT MIN(expires_at) FROM share_links WHERE revoked_at IS NULL AND expires_at > ?')
      .pluck()
      .get(now) as number | null;
    return at ?? undefined;
  }

  /** Ids of links that ended (expired, not revoked) in (`since`, `now`]. */
  expiredBetween(since: number, now: number): string[] {
    return this.db
      .prepare('SELECT id FROM share_links WHERE revoked_at IS NULL AND expires_at > ? AND expires_at <= ?')
      .pluck()
      .all(since, now) as string[];
  }

  revoke(id: string, at: number): boolean {
    return (
      this.db.prepare('UPDATE share_links SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id)
        .changes === 1
    );
  }

  touch(id: string, at: number): void {
    this.db.prepare('UPDATE share_links SET last_seen_at = ? WHERE id = ?').run(at, id);
  }

  /** Forgets links that ended (expired or revoked) before `before`. */
  prune(before: number): number {
    return this.db
      .prepare('DELETE FROM share_links WHERE expires_at < ? OR (revoked_at IS NOT NULL AND revoked_at < ?)')
      .run(before, before).changes;
  }
}
