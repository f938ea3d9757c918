import type { Clock } from '@tether/shared-protocol';
import { systemClock } from '@tether/shared-protocol';
import type { IDBPDatabase } from 'idb';
import type * as v from 'valibot';
import { safeParse } from 'valibot';
import type { Store } from '../lib/store.js';
import type { TranscriptState } from '../transcript/transcript.js';
import type { HostRecord, OutboxRecord, SessionListCache, TranscriptCache } from './records.js';
import { HostRecordSchema, OutboxRecordSchema, SessionListCacheSchema, TranscriptCacheSchema } from './records.js';
import type { TetherSchema, TranscriptSize } from './app-db-stores.js';
import { DB_NAME, committed, getCommitted, openAppDb } from './app-db-stores.js';
import type { StorageHealth, WriteKind } from './storage-health.js';
import { countFailedWrite, storageHealth } from './storage-health.js';

/**
 * The app's IndexedDB: paired hosts (with this device's keys for each), and caches of session
 * lists and transcripts so that a screen shows at once on open, before the host answers.
 *
 * Values are stored as `unknown` on purpose: whatever comes back is decoded with its schema.
 * When IndexedDB cannot be opened (a private window, storage full) the app still runs, in memory:
 * reads find nothing. No write fails silently: each failure is counted in `health`, which the app
 * shows as a banner, and the writes that matter (a host's record) say whether they were kept.
 *
 * Nothing waits on IndexedDB for ever. A page that was suspended in the middle of a transaction
 * (a home-screen app sent to the background, a page kept in the back-forward cache) can hold that
 * transaction open for many minutes in WebKit, and every other page's transaction on the same
 * store queues behind it. So a cache read gives up after READ_TIMEOUT_MS (the app goes on without
 * the cache: the computer has it all), and a write that has not finished after WRITE_TIMEOUT_MS
 * counts as failed (it may still land later). The hosts are the exception: the app cannot say
 * which computers are paired without them, so their read is waited for.
 *
 * So that this app's own pages never hold a store like that, every transaction here makes all of
 * its requests and commits in the same task (`committed`): the database finishes it without
 * waiting for the page, which may be frozen by then (WebKit freezes a page it keeps in its
 * back-forward cache, and a transaction left to commit itself waited for that page for good, with
 * every later page of the app stuck on the hosts). A decision that needs what a read gave (which
 * transcripts to evict, which unsent messages a forgotten host had) is a second transaction.
 */

/** Transcripts cached across all hosts; past it the least recently saved go first. */
export const MAX_CACHED_TRANSCRIPTS = 40;
/**
 * Characters of transcripts cached across all hosts (about that many bytes, up to twice as many
 * stored as UTF-16): past it the least recently saved go first. Far below what a phone's browser
 * grants a site, so the cache never crowds out the keys.
 */
export const MAX_CACHE_BYTES = 32 * 1024 * 1024;
/** How long (ms) a cache read may take before the screen goes on without it: the host's own
 * answer comes in about as soon on a working connection. */
export const READ_TIMEOUT_MS = 3000;
/** How long (ms) a write may take before it counts as failed: far longer than a working
 * IndexedDB takes (milliseconds), short enough for a pairing screen to say so. */
export const WRITE_TIMEOUT_MS = 10_000;

/** What a bounded wait gives when the work did not finish in time. */
const STALLED = Symbol('stalled');

/**
 * The transcripts to evict, least recently saved first, so that what remains is within both
 * bounds; `keep` (the one just written) is never evicted.
 */
export function evictions(
  rows: readonly TranscriptSize[],
  keep: string,
  maxCount = MAX_CACHED_TRANSCRIPTS,
  maxBytes = MAX_CACHE_BYTES,
): string[] {
  let count = rows.length;
  let bytes = rows.reduce((sum, row) => sum + row.bytes, 0);
  const out: string[] = [];
  for (const row of [...rows].sort((a, b) => a.savedAt - b.savedAt)) {
    if (count <= maxCount && bytes <= maxBytes) break;
    if (row.key === keep) continue;
    out.push(row.key);
    count--;
    bytes -= row.bytes;
  }
  return out;
}

export interface AppDbOptions {
  name?: string;
  /** The IndexedDB to open (tests give a stand-in); the page's own by default. */
  factory?: IDBFactory;
  /** Where failed writes are counted; a new count by default. */
  health?: Store<StorageHealth>;
  /** For the bounds on each wait (the system clock by default). */
  clock?: Clock;
}

export class AppDb {
  /** Failed writes and undecodable reads since the page opened: the storage banner reads it. */
  readonly health: Store<StorageHealth>;
  private readonly db: Promise<IDBPDatabase<TetherSchema> | undefined>;
  private readonly clock: Clock;
  /** Reads started before anyone asked (the screen the app opens on), taken by the first ask. */
  private readonly prefetched = new Map<string, Promise<TranscriptCache | undefined>>();

  constructor(options: AppDbOptions = {}) {
    this.health = options.health ?? storageHealth();
    this.clock = options.clock ?? systemClock;
    // Opening may throw at once (no IndexedDB here at all) or fail later: either way, no database.
    this.db = Promise.resolve()
      .then(() => openAppDb(options.factory ?? indexedDB, options.name ?? DB_NAME))
      .catch(() => undefined);
  }

  /** False when IndexedDB could not be opened: nothing will outlive the page. */
  async available(): Promise<boolean> {
    return (await this.db) !== undefined;
  }

  /**
   * Writes `value` and reads it back: what this browser really keeps of it (WebKit, for one,
   * writes an X25519 CryptoKey without complaint and reads back null). Undefined when the write
   * or the read failed. Not counted as a failed write: it is a question, asked before a real one.
   */
  async roundTrip(value: unknown): Promise<unknown> {
    const db = await this.db;
    if (!db) return undefined;
    const back = await this.bounded(
      (async () => {
        const tx = db.transaction('scratch', 'readwrite');
        const put = tx.store.put(value, 'probe');
        const read = tx.store.get('probe');
        return committed(tx, read, put, tx.store.delete('probe'));
      })(),
      WRITE_TIMEOUT_MS,
    ).catch(() => undefined);
    return back === STALLED ? undefined : back;
  }

  async hosts(): Promise<HostRecord[]> {
    const db = await this.db;
    if (!db) return [];
    const tx = db.transaction('hosts');
    const rows = await committed(tx, tx.store.getAll()).catch(() => []);
    return rows.flatMap((row) => this.decode(HostRecordSchema, row) ?? []);
  }

  /**
   * Keeps a host's record; true once it is read back and decodes as written (a browser may accept
   * a value it cannot give back). False, and counted, otherwise.
   */
  async putHost(host: HostRecord): Promise<boolean> {
    return this.write('host', async (db) => {
      const tx = db.transaction('hosts', 'readwrite');
      const put = tx.store.put(host);
      const back = safeParse(HostRecordSchema, await committed(tx, tx.store.get(host.hostId), put));
      if (!back.success || back.output.deviceId !== host.deviceId)
        throw new Error('the record was not kept as written');
    });
  }

  /** A host's messages waiting in the outbox, oldest first. Waited for: they are the person's words. */
  async outbox(hostId: string): Promise<OutboxRecord[]> {
    const db = await this.db;
    if (!db) return [];
    const tx = db.transaction('outbox');
    const rows = await committed(tx, tx.store.index('byHost').getAll(hostId)).catch(() => []);
    return rows.flatMap((row) => this.decode(OutboxRecordSchema, row) ?? []).sort((a, b) => a.createdAt - b.createdAt);
  }

  putOutbox(record: OutboxRecord): Promise<boolean> {
    return this.write('outbox', (db) => {
      const tx = db.transaction('outbox', 'readwrite');
      return committed(tx, tx.store.put(record));
    });
  }

  deleteOutbox(id: string): Promise<boolean> {
    return this.write('outbox', (db) => {
      const tx = db.transaction('outbox', 'readwrite');
      return committed(tx, tx.store.delete(id));
    });
  }

  /** Forgets a host and everything cached for it, its unsent messages too. */
  async deleteHost(hostId: string): Promise<boolean> {
    return this.write('host', async (db) => {
      const find = db.transaction('outbox');
      const unsent = await committed(find, find.store.index('byHost').getAllKeys(hostId));
      const tx = db.transaction(['hosts', 'sessionLists', 'transcripts', 'transcriptSizes', 'outbox'], 'readwrite');
      // A transcript's key is `<hostId>/<sessionId>`, and a host id holds no "/": one range each.
      const cached = IDBKeyRange.bound(`${hostId}/`, `${hostId}/\uffff`);
      await committed(
        tx,
        tx.objectStore('hosts').delete(hostId),
        tx.objectStore('sessionLists').delete(hostId),
        tx.objectStore('transcripts').delete(cached),
        tx.objectStore('transcriptSizes').delete(cached),
        ...unsent.map((id) => tx.objectStore('outbox').delete(id)),
      );
    });
  }

  async sessionList(hostId: string): Promise<SessionListCache | undefined> {
    const db = await this.db;
    const row = db ? await this.read(getCommitted(db, 'sessionLists', hostId)) : undefined;
    return row === undefined ? undefined : this.decode(SessionListCacheSchema, row);
  }

  async putSessionList(cache: SessionListCache): Promise<boolean> {
    return this.write('session-list', (db) => {
      const tx = db.transaction('sessionLists', 'readwrite');
      return committed(tx, tx.store.put(cache));
    });
  }

  /**
   * Starts reading a transcript now, alongside the hosts: the app opening on a session screen
   * then shows it without waiting for one read after the other.
   */
  prefetchTranscript(hostId: string, sessionId: string): void {
    const key = transcriptKey(hostId, sessionId);
    if (!this.prefetched.has(key)) this.prefetched.set(key, this.readTranscript(key));
  }

  transcript(hostId: string, sessionId: string): Promise<TranscriptCache | undefined> {
    const key = transcriptKey(hostId, sessionId);
    const early = this.prefetched.get(key);
    this.prefetched.delete(key);
    return early ?? this.readTranscript(key);
  }

  private async readTranscript(key: string): Promise<TranscriptCache | undefined> {
    const db = await this.db;
    const row = db ? await this.read(getCommitted(db, 'transcripts', key)) : undefined;
    return row === undefined ? undefined : this.decode(TranscriptCacheSchema, row);
  }

  /** A cache read, bounded: undefined when it failed, or stalled (counted). */
  private async read(request: Promise<unknown>): Promise<unknown> {
    const row = await this.bounded(request, READ_TIMEOUT_MS).catch(() => undefined);
    if (row !== STALLED) return row;
    this.health.update((h) => ({ ...h, stalledReads: h.stalledReads + 1 }));
    return undefined;
  }

  /** `work`, or STALLED once `ms` passed without it (what it does later is ignored). */
  private bounded<T>(work: Promise<T>, ms: number): Promise<T | typeof STALLED> {
    return new Promise<T | typeof STALLED>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => resolve(STALLED), ms);
      work.then(
        (value) => {
          this.clock.clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          this.clock.clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  async putTranscript(hostId: string, sessionId: string, state: TranscriptState, savedAt: number): Promise<boolean> {
    this.prefetched.delete(transcriptKey(hostId, sessionId));
    const row: TranscriptCache = { key: transcriptKey(hostId, sessionId), hostId, sessionId, state, savedAt };
    const bytes = JSON.stringify(state).length;
    return this.write('transcript', async (db) => {
      const tx = db.transaction(['transcripts', 'transcriptSizes'], 'readwrite');
      const sizes = tx.objectStore('transcriptSizes');
      const puts = [tx.objectStore('transcripts').put(row), sizes.put({ key: row.key, hostId, bytes, savedAt })];
      // Sizes are decoded like everything read back: a damaged row counts as large, so it goes first.
      const rows = (await committed(tx, sizes.getAll(), ...puts)).map((r) => ({
        ...r,
        bytes: Number.isFinite(r.bytes) ? r.bytes : MAX_CACHE_BYTES,
      }));
      const evicted = evictions(rows, row.key);
      if (evicted.length === 0) return;
      const evict = db.transaction(['transcripts', 'transcriptSizes'], 'readwrite');
      await committed(
        evict,
        Promise.resolve(),
        ...evicted.flatMap((key) => [
          evict.objectStore('transcripts').delete(key),
          evict.objectStore('transcriptSizes').delete(key),
        ]),
      );
    });
  }

  private decode<S extends v.GenericSchema>(schema: S, row: unknown): v.InferOutput<S> | undefined {
    const parsed = safeParse(schema, row);
    if (parsed.success) return parsed.output;
    this.health.update((h) => ({ ...h, undecodable: h.undecodable + 1 }));
    return undefined;
  }

  /**
   * Runs a write; true once done, false (and counted as a failed write of `kind`) when it failed
   * or did not finish within WRITE_TIMEOUT_MS.
   */
  private async write(kind: WriteKind, action: (db: IDBPDatabase<TetherSchema>) => Promise<unknown>): Promise<boolean> {
    const db = await this.db;
    try {
      if (!db) throw new Error('IndexedDB is not open');
      if ((await this.bounded(action(db), WRITE_TIMEOUT_MS)) === STALLED) throw new Error('the write stalled');
      return true;
    } catch {
      countFailedWrite(this.health, kind);
      return false;
    }
  }
}

export function transcriptKey(hostId: string, sessionId: string): string {
  return `${hostId}/${sessionId}`;
}
