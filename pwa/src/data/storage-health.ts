import { Store } from '../lib/store.js';

/**
 * What the app's storage failed to do since the page opened, for the banner that says so: no
 * failed write goes unseen. Counts only grow; they are not kept across pages.
 */

/** What a write held: a paired computer's record (with this device's key for it), or a cache. */
export type WriteKind = 'host' | 'session-list' | 'transcript' | 'outbox';

export interface StorageHealth {
  /** Writes that failed (refused, or not read back as written), by what they held. */
  failed: Record<WriteKind, number>;
  /** Rows read back that did not decode, and were skipped. */
  undecodable: number;
  /** Cache reads given up on after waiting too long (another page held the store). */
  stalledReads: number;
  /** What the latest failed write held; null before any failed. */
  last: WriteKind | null;
}

export function storageHealth(): Store<StorageHealth> {
  return new Store<StorageHealth>({
    failed: { host: 0, 'session-list': 0, transcript: 0, outbox: 0 },
    undecodable: 0,
    stalledReads: 0,
    last: null,
  });
}

export function countFailedWrite(health: Store<StorageHealth>, kind: WriteKind): void {
  health.update((h) => ({ ...h, failed: { ...h.failed, [kind]: h.failed[kind] + 1 }, last: kind }));
}

export function failedWrites(health: StorageHealth): number {
  return health.failed.host + health.failed['session-list'] + health.failed.transcript + health.failed.outbox;
}

/**
 * Why a pairing was not kept, as the pairing screen shows it. `afterPairing` is set when the
 * computer had already allowed the device: whether it was then told to forget it.
 */
export interface NotKept {
  code: 'storage-failed';
  message: string;
  afterPairing?: { deviceId: string; revoked: boolean };
}
