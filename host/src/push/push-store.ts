import type { PushPreferences } from '@tether/shared-protocol';
import { DEFAULT_PUSH_PREFERENCES, PushPreferencesSchema } from '@tether/shared-protocol';
import * as v from 'valibot';
import type { Db } from '../store/database.js';

/** Subscriptions one device may hold: a browser has one per origin, so more are old ones left
 * behind (a subscription renewed by the browser); the oldest goes first. */
export const MAX_SUBSCRIPTIONS_PER_DEVICE = 4;

export interface PushSubscriptionRecord {
  endpoint: string;
  deviceId: string;
  /** base64url of the subscription's P-256 public key and auth secret (RFC 8291). */
  p256dh: string;
  auth: string;
  preferences: PushPreferences;
  createdAt: number;
  /** The app's address when the browser takes Declarative Web Push (its taps open it). */
  declarativeUrl?: string;
}

interface Row {
  endpoint: string;
  device_id: string;
  p256dh: string;
  auth: string;
  preferences: string;
  created_at: number;
  declarative_url: string | null;
}

function fromRow(row: Row): PushSubscriptionRecord {
  let preferences = DEFAULT_PUSH_PREFERENCES;
  try {
    const parsed = v.safeParse(PushPreferencesSchema, JSON.parse(row.preferences));
    if (parsed.success) preferences = parsed.output;
  } catch {
    // A damaged row keeps the defaults rather than failing every send.
  }
  return {
    endpoint: row.endpoint,
    deviceId: row.device_id,
    p256dh: row.p256dh,
    auth: row.auth,
    preferences,
    createdAt: row.created_at,
    ...(row.declarative_url !== null ? { declarativeUrl: row.declarative_url } : {}),
  };
}

/**
 * Push subscriptions, per device. A revoked device's subscriptions are deleted by the database
 * itself (a trigger of migration 2), whoever revokes it.
 */
export class PushStore {
  constructor(private readonly db: Db) {}

  /** Adds or replaces a subscription (an endpoint belongs to the device that sent it last). */
  put(record: Omit<PushSubscriptionRecord, 'preferences'> & { preferences?: PushPreferences }): PushSubscriptionRecord {
    const existing = this.get(record.endpoint);
    const preferences = record.preferences ?? existing?.preferences ?? DEFAULT_PUSH_PREFERENCES;
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO push_subscriptions (endpoint, device_id, p256dh, auth, preferences, created_at, declarative_url)
           VALUES (@endpoint, @deviceId, @p256dh, @auth, @preferences, @createdAt, @declarativeUrl)
           ON CONFLICT (endpoint) DO UPDATE SET device_id = @deviceId, p256dh = @p256dh, auth = @auth,
             preferences = @preferences, created_at = @createdAt, declarative_url = @declarativeUrl`,
        )
        .run({ ...record, preferences: JSON.stringify(preferences), declarativeUrl: record.declarativeUrl ?? null });
      const extra = this.forDevice(record.deviceId).slice(MAX_SUBSCRIPTIONS_PER_DEVICE);
      for (const old of extra) this.remove(old.endpoint);
    })();
    return this.get(record.endpoint)!;
  }

  get(endpoint: string): PushSubscriptionRecord | undefined {
    const row = this.db.prepare('SELECT * FROM push_subscriptions WHERE endpoint = ?').get(endpoint) as Row | undefined;
    return row && fromRow(row);
  }

  /** A device's subscriptions, newest first. */
  forDevice(deviceId: string): PushSubscriptionRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM push_subscriptions WHERE device_id = ? ORDER BY created_at DESC, rowid DESC')
      .all(deviceId) as Row[];
    return rows.map(fromRow);
  }

  /** Every subscription of a device that is not revoked, oldest device first. */
  active(): PushSubscriptionRecord[] {
    const rows = this.db
      .prepare(
        `SELECT p.* FROM push_subscriptions p JOIN devices d ON d.id = p.device_id
         WHERE d.revoked_at IS NULL ORDER BY d.created_at, p.created_at`,
      )
      .all() as Row[];
    return rows.map(fromRow);
  }

  /** Removes one subscription; `deviceId`, when given, must own it. True when one was removed. */
  remove(endpoint: string, deviceId?: string): boolean {
    const result =
      deviceId === undefined
        ? this.db.prepare('DELETE FROM push_subscriptions WHERE endpoint = ?').run(endpoint)
        : this.db
            .prepare('DELETE FROM push_subscriptions WHERE endpoint = ? AND device_id = ?')
            .run(endpoint, deviceId);
    return result.changes > 0;
  }

  count(): number {
    return this.db.prepare('SELECT COUNT(*) FROM push_subscriptions').pluck().get() as number;
  }
}
