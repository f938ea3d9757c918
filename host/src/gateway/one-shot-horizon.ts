import type { Db } from '../store/database.js';

/** Settings key of a device's newest one-shot timestamp: the prefix, then the device id. */
const KEY_PREFIX = 'one-shot-newest:';

/**
 * The newest timestamp of a one-shot call from each device that the host acted on, kept in the
 * store so that it outlives the process. The replay cache is in memory and starts empty: a call
 * taken just before a restart would pass it again for as long as its timestamp stays inside the
 * clock window, and a device whose clock runs ahead stamps calls that stay inside it for up to two
 * windows (4 min). So a call stamped no later than the newest its device had taken by an earlier
 * run is refused; the device's own clock stamps its fresh calls later.
 *
 * Read once at start: within a run the replay cache judges, and calls may arrive out of order
 * (one through the relay, one direct). One row per device that ever made a call, written before
 * the call is acted on.
 */
export class OneShotHorizon {
  private readonly earlier = new Map<string, number>();

  constructor(private readonly db: Db) {
    const rows = db
      .prepare('SELECT key, value FROM settings WHERE substr(key, 1, ?) = ?')
      .all(KEY_PREFIX.length, KEY_PREFIX) as { key: string; value: string }[];
    for (const { key, value } of rows) {
      const stampedAt = Number(value);
      if (Number.isSafeInteger(stampedAt)) this.earlier.set(key.slice(KEY_PREFIX.length), stampedAt);
    }
  }

  /** The newest timestamp of a call from `deviceId` that an earlier run acted on, if any. */
  takenBefore(deviceId: string): number | undefined {
    return this.earlier.get(deviceId);
  }

  /**
   * Keeps `stampedAt` for the runs after this one, before the call is acted on. False when the
   * store refused the write (a full disk): the call must then be refused, or a restart could
   * replay it.
   */
  record(deviceId: string, stampedAt: number): boolean {
    const key = KEY_PREFIX + deviceId;
    try {
      this.db.transaction(() => {
        const stored = Number(this.db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(key) ?? NaN);
        if (stored >= stampedAt) return;
        this.db
          .prepare(
            'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
          )
          .run(key, String(stampedAt));
      })();
      return true;
    } catch {
      return false;
    }
  }
}
