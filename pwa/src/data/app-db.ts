import type { DBSchema, IDBPDatabase } from 'idb';
import { openDB } from 'idb';
import type * as v from 'valibot';
import { safeParse } from 'valibot';
import type { TranscriptState } from '../transcript/transcript.js';
import type { HostRecord, SessionListCache, TranscriptCache } from './records.js';
import { HostRecordSchema, SessionListCacheSchema, TranscriptCacheSchema } from './records.js';

/**
 * The app's IndexedDB: paired hosts (with this device's keys for each), and caches of session
 * lists and transcripts so that a screen shows at once on open, before the host answers.
 *
 * Values are stored as `unknown` on purpose: whatever comes back is decoded with its schema.
 * When IndexedDB cannot be opened (a private window, storage full) the app still runs, in memory:
 * reads find nothing and writes are counted as failed.
 */

interface TetherSchema extends DBSchema {
  hosts: { key: string; value: unknown };
  sessionLists: { key: string; value: unknown };
  transcripts: { key: string; value: unknown; indexes: { byHost: string; bySaved: number } };
  /** Each cached transcript's size, kept apart so that eviction never reads the transcripts. */
  transcriptSizes: { key: string; value: TranscriptSize; indexes: { byHost: string } };
}

export interface TranscriptSize {
  key: string;
  hostId: string;
  /** The transcript's JSON length in characters: an estimate of what it takes in storage. */
  bytes: number;
  savedAt: number;
}

const DB_NAME = 'tether';
const DB_VERSION = 2;
/** Transcripts cached across all hosts; past it the least recently saved go first. */
export const MAX_CACHED_TRANSCRIPTS = 40;
/**
 * Characters of transcripts cached across all hosts (about that many bytes, up to twice as many
 * stored as UTF-16): past it the least recently saved go first. Far below what a phone's browser
 * grants a site, so the cache never crowds out the keys.
 */
export const MAX_CACHE_BYTES = 32 * 1024 * 1024;

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

export class AppDb {
  /** Reads that did not decode (skipped) and writes that failed: shown nowhere, kept for debugging. */
  readonly counts = { undecodable: 0, writeFailed: 0 };
  private readonly db: Promise<IDBPDatabase<TetherSchema> | undefined>;
  /** Reads started before anyone asked (the screen the app opens on), taken by the first ask. */
  private readonly prefetched = new Map<string, Promise<TranscriptCache | undefined>>();

  constructor(name = DB_NAME) {
    this.db = openDB<TetherSchema>(name, DB_VERSION, {
      upgrade(db, oldVersion, _newVersion, tx) {
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
      },
    }).catch(() => undefined);
  }

  /** False when IndexedDB could not be opened: nothing will outlive the page. */
  async available(): Promise<boolean> {
    return (await this.db) !== undefined;
  }

  async hosts(): Promise<HostRecord[]> {
    const db = await this.db;
    if (!db) return [];
    const rows = await db.getAll('hosts').catch(() => []);
    return rows.flatMap((row) => this.decode(HostRecordSchema, row) ?? []);
  }

  async putHost(host: HostRecord): Promise<void> {
    await this.write((db) => db.put('hosts', host));
  }

  /** Forgets a host and everything cached for it. */
  async deleteHost(hostId: string): Promise<void> {
    await this.write(async (db) => {
      const tx = db.transaction(['hosts', 'sessionLists', 'transcripts', 'transcriptSizes'], 'readwrite');
      await tx.objectStore('hosts').delete(hostId);
      await tx.objectStore('sessionLists').delete(hostId);
      const index = tx.objectStore('transcripts').index('byHost');
      for (let cursor = await index.openCursor(hostId); cursor; cursor = await cursor.continue()) {
        await cursor.delete();
      }
      const sizes = tx.objectStore('transcriptSizes').index('byHost');
      for (let cursor = await sizes.openCursor(hostId); cursor; cursor = await cursor.continue()) {
        await cursor.delete();
      }
      await tx.done;
    });
  }

  async sessionList(hostId: string): Promise<SessionListCache | undefined> {
    const db = await this.db;
    const row: unknown = db ? await db.get('sessionLists', hostId).catch(() => undefined) : undefined;
    return row === undefined ? undefined : this.decode(SessionListCacheSchema, row);
  }

  async putSessionList(cache: SessionListCache): Promise<void> {
    await this.write((db) => db.put('sessionLists', cache));
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
    const row: unknown = db ? await db.get('transcripts', key).catch(() => undefined) : undefined;
    return row === undefined ? undefined : this.decode(TranscriptCacheSchema, row);
  }

  async putTranscript(hostId: string, sessionId: string, state: TranscriptState, savedAt: number): Promise<void> {
    this.prefetched.delete(transcriptKey(hostId, sessionId));
    const row: TranscriptCache = { key: transcriptKey(hostId, sessionId), hostId, sessionId, state, savedAt };
    const bytes = JSON.stringify(state).length;
    await this.write(async (db) => {
      const tx = db.transaction(['transcripts', 'transcriptSizes'], 'readwrite');
      const sizes = tx.objectStore('transcriptSizes');
      await tx.objectStore('transcripts').put(row);
      await sizes.put({ key: row.key, hostId, bytes, savedAt });
      // Sizes are decoded like everything read back: a damaged row counts as large, so it goes first.
      const rows = (await sizes.getAll()).map((r) => ({
        ...r,
        bytes: Number.isFinite(r.bytes) ? r.bytes : MAX_CACHE_BYTES,
      }));
      for (const key of evictions(rows, row.key)) {
        await tx.objectStore('transcripts').delete(key);
        await sizes.delete(key);
      }
      await tx.done;
    });
  }

  private decode<S extends v.GenericSchema>(schema: S, row: unknown): v.InferOutput<S> | undefined {
    const parsed = safeParse(schema, row);
    if (parsed.success) return parsed.output;
    this.counts.undecodable++;
    return undefined;
  }

  private async write(action: (db: IDBPDatabase<TetherSchema>) => Promise<unknown>): Promise<void> {
    const db = await this.db;
    if (!db) {
      this.counts.writeFailed++;
      return;
    }
    try {
      await action(db);
    } catch {
      this.counts.writeFailed++;
    }
  }
}

export function transcriptKey(hostId: string, sessionId: string): string {
  return `${hostId}/${sessionId}`;
}
