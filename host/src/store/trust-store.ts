import type { TrustFamily } from '@tether/shared-protocol';
import type { Db } from './database.js';

/** Trusted folder configurations kept; past it the oldest are forgotten (and asked about again). */
export const MAX_TRUSTED = 10_000;

/** A folder's own configuration for one agent, trusted as it was shown. */
export interface TrustRecord {
  /** `local`, or a machine's id. */
  place: string;
  folder: string;
  /** The agent that loads it. */
  family: TrustFamily;
  fingerprint: string;
  /** What the person was shown. */
  action: string;
  trustedAt: number;
  /** Who trusted it: a device's label, or "at the computer". */
  trustedBy: string;
}

interface Row {
  place: string;
  folder: string;
  family: string;
  fingerprint: string;
  action: string;
  trusted_at: number;
  trusted_by: string;
}

const fromRow = (row: Row): TrustRecord => ({
  place: row.place,
  folder: row.folder,
  family: row.family as TrustFamily,
  fingerprint: row.fingerprint,
  action: row.action,
  trustedAt: row.trusted_at,
  trustedBy: row.trusted_by,
});

/** The folder_trust table. */
export class TrustStore {
  constructor(private readonly db: Db) {}

  get(place: string, folder: string, family: string): TrustRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM folder_trust WHERE place = ? AND folder = ? AND family = ?')
      .get(place, folder, family) as Row | undefined;
    return row && fromRow(row);
  }

  /** Trusts a configuration, replacing what was trusted for that place, folder and agent. */
  set(record: TrustRecord): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO folder_trust (place, folder, family, fingerprint, action, trusted_at, trusted_by)
           VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (place, folder, family) DO UPDATE SET fingerprint = excluded.fingerprint,
             action = excluded.action, trusted_at = excluded.trusted_at, trusted_by = excluded.trusted_by`,
        )
        .run(
          record.place,
          record.folder,
          record.family,
          record.fingerprint,
          record.action,
          record.trustedAt,
          record.trustedBy,
        );
      this.db
        .prepare(
          `DELETE FROM folder_trust WHERE (place, folder, family) IN
             (SELECT place, folder, family FROM folder_trust ORDER BY trusted_at DESC LIMIT -1 OFFSET ?)`,
        )
        .run(MAX_TRUSTED);
    })();
  }

  /** Every trusted configuration, newest first. */
  list(): TrustRecord[] {
    return (this.db.prepare('SELECT * FROM folder_trust ORDER BY trusted_at DESC').all() as Row[]).map(fromRow);
  }

  /** Forgets what was trusted in a folder, for one agent or every one; how many were forgotten. */
  revoke(place: string, folder: string, family?: TrustFamily): number {
    if (family !== undefined) {
      return this.db
        .prepare('DELETE FROM folder_trust WHERE place = ? AND folder = ? AND family = ?')
        .run(place, folder, family).changes;
    }
    return this.db.prepare('DELETE FROM folder_trust WHERE place = ? AND folder = ?').run(place, folder).changes;
  }
}
