import type { Clock, DeviceClient, ProtocolError, SessionEvent, TimerHandle } from '@tether/shared-protocol';
import { Store } from '../lib/store.js';
import type { TranscriptState } from '../transcript/transcript.js';
import { EMPTY_TRANSCRIPT, applyEvent } from '../transcript/transcript.js';
import type { TranscriptCachePort } from './cache-port.js';

export interface FeedView {
  transcript: TranscriptState;
  /** False until the cached transcript (if any) has been read: nothing is shown before that. */
  loaded: boolean;
  /** The last sequence number written to the cache. */
  savedSeq: number;
  /** Why the host refused to stream this session (it is gone, or the device may not watch). */
  watchError: ProtocolError | null;
}

/**
 * Writes of a changing transcript wait this long (ms) and go as one: a streaming reply changes it
 * a few times a second, and the cache needs only the latest.
 */
export const SAVE_DELAY_MS = 400;

/**
 * One session followed live: the cached transcript first, then a watch from its last sequence
 * number, so that the host replays exactly what the cache lacks. The DeviceClient delivers each
 * event once and in order, and resumes the watch after every reconnect.
 */
export class SessionFeed {
  readonly view: Store<FeedView>;
  private saveTimer: TimerHandle | undefined;
  private closed = false;

  constructor(
    readonly hostId: string,
    readonly sessionId: string,
    private readonly client: DeviceClient,
    private readonly cache: TranscriptCachePort,
    private readonly clock: Clock,
  ) {
    this.view = new Store<FeedView>({ transcript: EMPTY_TRANSCRIPT, loaded: false, savedSeq: 0, watchError: null });
  }

  async open(): Promise<void> {
    const cached = await this.cache.transcript(this.hostId, this.sessionId);
    if (this.closed) return;
    const transcript = cached?.state ?? EMPTY_TRANSCRIPT;
    this.view.set({ transcript, loaded: true, savedSeq: transcript.lastSeq, watchError: null });
    const watched = this.client.watch(this.sessionId, transcript.lastSeq);
    if (!watched.ok) this.view.update((view) => ({ ...view, watchError: watched.error }));
  }

  apply(event: SessionEvent): void {
    const view = this.view.get();
    // Before the cache is read no watch exists: only list updates arrive, and the replay covers them.
    if (!view.loaded || this.closed) return;
    const { state, outcome } = applyEvent(view.transcript, event);
    if (outcome === 'gap') {
      // The client guarantees order within a watch, so a gap means our state and its watch
      // disagree: ask again from what we hold.
      this.client.unwatch(this.sessionId);
      this.client.watch(this.sessionId, view.transcript.lastSeq);
      return;
    }
    if (outcome === 'duplicate') return;
    this.view.set({ ...view, transcript: state, watchError: null });
    this.scheduleSave();
  }

  watchFailed(error: ProtocolError): void {
    this.view.update((view) => ({ ...view, watchError: error }));
  }

  /** Writes the transcript now (the page is being hidden, or the feed closes). */
  async flush(): Promise<void> {
    if (this.saveTimer !== undefined) this.clock.clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const { transcript, savedSeq, loaded } = this.view.get();
    if (!loaded || transcript.lastSeq === savedSeq) return;
    await this.cache.putTranscript(this.hostId, this.sessionId, transcript, this.clock.now());
    this.view.update((view) => ({ ...view, savedSeq: Math.max(view.savedSeq, transcript.lastSeq) }));
  }

  close(): void {
    if (this.closed) return;
    void this.flush();
    this.closed = true;
    this.client.unwatch(this.sessionId);
  }

  private scheduleSave(): void {
    if (this.saveTimer !== undefined) return;
    this.saveTimer = this.clock.setTimeout(() => {
      this.saveTimer = undefined;
      void this.flush();
    }, SAVE_DELAY_MS);
  }
}
