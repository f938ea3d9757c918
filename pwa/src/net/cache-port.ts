import type { SessionListCache, TranscriptCache } from '../data/records.js';
import type { TranscriptState } from '../transcript/transcript.js';

/**
 * The caches a connection reads and writes. `AppDb` (IndexedDB) in the app; an in-memory map in
 * tests, which is the seam they use instead of a database. A write says whether it was kept; a
 * failed one is also counted where the storage banner sees it (AppDb.health).
 */
export interface TranscriptCachePort {
  transcript(hostId: string, sessionId: string): Promise<TranscriptCache | undefined>;
  putTranscript(hostId: string, sessionId: string, state: TranscriptState, savedAt: number): Promise<boolean>;
}

export interface CachePort extends TranscriptCachePort {
  sessionList(hostId: string): Promise<SessionListCache | undefined>;
  putSessionList(cache: SessionListCache): Promise<boolean>;
}

/** An in-memory CachePort, for tests and for when IndexedDB is unavailable. */
export class MemoryCache implements CachePort {
  readonly lists = new Map<string, SessionListCache>();
  readonly transcripts = new Map<string, TranscriptCache>();

  sessionList(hostId: string): Promise<SessionListCache | undefined> {
    return Promise.resolve(this.lists.get(hostId));
  }

  putSessionList(cache: SessionListCache): Promise<boolean> {
    this.lists.set(cache.hostId, structuredClone(cache));
    return Promise.resolve(true);
  }

  transcript(hostId: string, sessionId: string): Promise<TranscriptCache | undefined> {
    const row = this.transcripts.get(`${hostId}/${sessionId}`);
    return Promise.resolve(row && structuredClone(row));
  }

  putTranscript(hostId: string, sessionId: string, state: TranscriptState, savedAt: number): Promise<boolean> {
    const key = `${hostId}/${sessionId}`;
    this.transcripts.set(key, structuredClone({ key, hostId, sessionId, state, savedAt }));
    return Promise.resolve(true);
  }
}
