import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';
import { wrap } from 'idb';

/** The app's IndexedDB stores (see AppDb), each at the version that made it. */
export interface TetherSchema extends DBSchema {
  hosts: { key: string; value: unknown };
  sessionLists: { key: string; value: unknown };
  transcripts: { key: string; value: unknown; indexes: { byHost: string; bySaved: number } };
  /** Each cached transcript's size, kept apart so that eviction never reads the transcripts. */
  transcriptSizes: { key: string; value: TranscriptSize; indexes: { byHost: string } };
  /** One value at a time, written and read back to learn what this browser keeps (roundTrip). */
  scratch: { key: string; value: unknown };
  /** Messages not yet taken by their computer (net/outbox.ts), by message id. */
  outbox: { key: string; value: unknown; indexes: { byHost: string } };
}

export interface TranscriptSize {
  key: string;
  hostId: string;
  /** The transcript's JSON length in characters: an estimate of what it takes in storage. */
  bytes: number;
  savedAt: number;
}

export const DB_NAME = 'tether';
const DB_VERSION = 4;

/**
 * Commits `tx` now, every request of it made already, and gives `result` once the transaction is
 * done: the database finishes it whatever the page does next (see AppDb).
 */
export function committed<T>(
  tx: { commit(): void; done: Promise<void> },
  result: Promise<T>,
  ...others: Promise<unknown>[]
): Promise<T> {
  tx.commit();
  return Promise.all([result, tx.done, ...others]).then(([value]) => value);
}

/** One value of a store, read in a transaction committed at once. */
export function getCommitted(db: IDBPDatabase<TetherSchema>, store: 'sessionLists' | 'transcripts', key: string) {
  const tx = db.transaction(store);
  return committed(tx, tx.store.get(key));
}

/**
 * Opens the database on `factory`, creating or upgrading its stores (what idb's openDB does). A
 * newer app (another tab, after an update) that upgrades the database is not kept waiting: this
 * connection closes, and its later writes fail and are counted, so this page's banner says so.
 */
export function openAppDb(factory: IDBFactory, name: string): Promise<IDBPDatabase<TetherSchema>> {
  const request = factory.open(name, DB_VERSION);
  request.addEventListener('success', () => {
    const db = request.result;
    db.addEventListener('versionchange', () => db.close());
  });
  request.addEventListener('upgradeneeded', (event) => {
    const db = wrap(request.result) as unknown as IDBPDatabase<TetherSchema>;
    const tx = wrap(request.transaction!) as unknown as IDBPTransaction<
      TetherSchema,
      StoreNames<TetherSchema>[],
      'versionchange'
    >;
    upgrade(db, event.oldVersion, tx);
  });
  return wrap(request) as unknown as Promise<IDBPDatabase<TetherSchema>>;
}

function upgrade(
  db: IDBPDatabase<TetherSchema>,
  oldVersion: number,
  tx: IDBPTransaction<TetherSchema, StoreNames<TetherSchema>[], 'versionchange'>,
): void {
  if (oldVersion < 1) {
    db.createObjectStore('hosts', { keyPath: 'hostId' });
    db.createObjectStore('sessionLists', { keyPath: 'hostId' });
    const transcripts = db.createObjectStore('transcripts', { keyPath: 'key' });
    transcripts.createIndex('byHost', 'hostId');
    transcripts.createIndex('bySaved', 'savedAt');
  }
  if (oldVersion < 2) {
    db.createObjectStore('transcriptSizes', { keyPath: 'key' }).createIndex('byHost', 'hostId');
    // Transcripts cached before sizes were kept are dropped: they are refilled from the host.
    if (oldVersion >= 1) void tx.objectStore('transcripts').clear();
  }
  if (oldVersion < 3) db.createObjectStore('scratch');
  if (oldVersion < 4) db.createObjectStore('outbox', { keyPath: 'id' }).createIndex('byHost', 'hostId');
}
