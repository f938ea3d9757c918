import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';

/**
 * An IndexedDB for tests (fake-indexeddb, in memory) whose storage can be made to behave as a
 * browser's does when it fails. Every value it stores or reads goes through structured clone, so
 * the stand-in replaces `structuredClone` while it is installed:
 *
 * - `as-is`: clones as Node does (which, like Chromium, keeps an X25519 CryptoKey);
 * - `webkit`: refuses a value holding an X25519 CryptoKey, as WebKit's serializer does ("Unable to
 *   deserialize data");
 * - `webkit-null`: gives back null for such a value, as WebKit's IndexedDB does for a bare put;
 * - `refuse`: refuses everything, as a full or blocked storage does.
 *
 * Tests only: install in a test, `restore()` after it.
 */
export type StandInMode = 'as-is' | 'webkit' | 'webkit-null' | 'refuse';

export interface IdbStandIn {
  factory: IDBFactory;
  mode: StandInMode;
  restore(): void;
}

export function installIdbStandIn(mode: StandInMode = 'as-is'): IdbStandIn {
  const real = globalThis.structuredClone;
  const standIn: IdbStandIn = {
    factory: new IDBFactory(),
    mode,
    restore: () => {
      globalThis.structuredClone = real;
    },
  };
  globalThis.structuredClone = (value: unknown, options?: StructuredSerializeOptions) => {
    if (standIn.mode === 'refuse') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    if (standIn.mode !== 'as-is' && holdsX25519(value, 0)) {
      if (standIn.mode === 'webkit-null') return null;
      throw new TypeError('Unable to deserialize data.');
    }
    return real(value, options);
  };
  return standIn;
}

/** Nesting searched for a key: deeper than any record the app writes. */
const MAX_DEPTH = 8;

function holdsX25519(value: unknown, depth: number): boolean {
  if (value instanceof CryptoKey) return value.algorithm.name === 'X25519';
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return false;
  return Object.values(value).some((inner) => holdsX25519(inner, depth + 1));
}

/** A factory whose every open fails, as where IndexedDB is refused outright. */
export function refusingFactory(): IDBFactory {
  const factory = new IDBFactory();
  factory.open = () => {
    throw new DOMException('IndexedDB is not available here.', 'InvalidStateError');
  };
  return factory;
}

/**
 * Holds a read-write transaction on `store` of database `name` open from a second connection, as
 * a page suspended in the middle of one does (WebKit keeps such a transaction open for minutes):
 * every other transaction on the store waits behind it. Returns the release.
 */
export async function holdStore(factory: IDBFactory, name: string, store: string): Promise<() => Promise<void>> {
  const request = factory.open(name);
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(new Error('could not open the database to hold'));
  });
  const tx = db.transaction(store, 'readwrite');
  let held = true;
  // A transaction stays open while it has requests: ask again as each answer comes.
  const ask = () => {
    if (held) tx.objectStore(store).count().onsuccess = ask;
  };
  ask();
  const done = new Promise<void>((resolve) => (tx.oncomplete = () => resolve()));
  return async () => {
    held = false;
    await done;
    db.close();
  };
}
