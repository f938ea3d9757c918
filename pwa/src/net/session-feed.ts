import type { Clock, DeviceClient, ProtocolError, SessionEvent, TimerHandle } from '@tether/shared-protocol';
import { decodeEvent, isSessionEvent } from '@tether/shared-protocol';
import type { FrameScheduler } from '../lib/next-frame.js';
import { nextFrame } from '../lib/next-frame.js';
import { Store } from '../lib/store.js';
import type { TranscriptState } from '../transcript/transcript.js';
import { EMPTY_TRANSCRIPT, applyBatch, trimForCache } from '../transcript/transcript.js';
import { fillGap, gaps, skipTo } from '../transcript/transcript-gaps.js';
import type { TranscriptCachePort } from './cache-port.js';

export interface FeedView {
  transcript: TranscriptState;
  /** False until the cached transcript (if any) has been read: nothing is shown before that. */
  loaded: boolean;
  /** The last sequence number written to the cache. */
  savedSeq: number;
  /** Why the host refused to stream this session (it is gone, or the device may not watch). */
  watchError: ProtocolError | null;
  /** A history page is being read to fill the newest gap. */
  loadingOlder: boolean;
  /** Why the last history page could not be read (shown by the gap, which offers to try again). */
  olderError: ProtocolError | null;
}

export const NO_FEED: FeedView = {
  transcript: EMPTY_TRANSCRIPT,
  loaded: false,
  savedSeq: 0,
  watchError: null,
  loadingOlder: false,
  olderError: null,
};

/**
 * Events a watch replays at most when the feed (re)opens: a few screenfuls (a tool call is about
 * five events). Coming back after hours, the rest is skipped and read as history pages when
 * scrolled to; replaying more only delays the newest event on a slow phone.
 */
export const WATCH_TAIL = 120;
/** Events in one history page read to fill a gap. */
export const HISTORY_PAGE = 300;
/**
 * Events waiting for the next animation frame at most. A hidden page gets no frames: past this
 * the batch is applied at once, so the queue stays bounded while nobody looks.
 */
export const MAX_PENDING_EVENTS = 2000;

type Pending = SessionEvent | { type: 'skip'; after: number; to: number };

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
  private pending: Pending[] = [];
  private frameAsked = false;

  constructor(
    readonly hostId: string,
    readonly sessionId: string,
    private readonly client: DeviceClient,
    private readonly cache: TranscriptCachePort,
    private readonly clock: Clock,
    private readonly frame: FrameScheduler = nextFrame,
  ) {
    this.view = new Store<FeedView>(NO_FEED);
  }

  async open(): Promise<void> {
    const cached = await this.cache.transcript(this.hostId, this.sessionId);
    if (this.closed) return;
    const transcript = cached?.state ?? EMPTY_TRANSCRIPT;
    this.view.set({ ...NO_FEED, transcript, loaded: true, savedSeq: transcript.lastSeq });
    const watched = this.client.watch(this.sessionId, transcript.lastSeq, { tail: WATCH_TAIL });
    if (!watched.ok) this.view.update((view) => ({ ...view, watchError: watched.error }));
  }

  /** Takes an event of this session; events are folded in batches, once per animation frame. */
  apply(event: SessionEvent): void {
    // Before the cache is read no watch exists: only list updates arrive, and the replay covers them.
    if (!this.view.get().loaded || this.closed) return;
    this.enqueue(event);
  }

  /** The watch skipped the events in (after, to]: they become a gap, read later as history pages. */
  skipped(after: number, to: number): void {
    if (!this.view.get().loaded || this.closed) return;
    this.enqueue({ type: 'skip', after, to });
  }

  /**
   * Reads the history page that fills the newest part of a gap: the one given (the gap the reader
   * nears), or else the newest. One read at a time; the gap stays, with the error, when the host
   * cannot answer.
   */
  async loadOlder(gapId?: string): Promise<void> {
    this.drain();
    const view = this.view.get();
    const all = gaps(view.transcript);
    const gap = all.find((g) => g.id === gapId) ?? all[0];
    if (!gap || view.loadingOlder || this.closed) return;
    this.view.set({ ...view, loadingOlder: true, olderError: null });
    const page = await this.client.call('sessions.history', {
      id: this.sessionId,
      before: gap.to + 1,
      limit: HISTORY_PAGE,
    });
    if (this.closed) return;
    if (!page.ok) {
      this.view.update((v) => ({ ...v, loadingOlder: false, olderError: page.error }));
      return;
    }
    const events: SessionEvent[] = [];
    for (const raw of page.value.events) {
      const decoded = decodeEvent(raw);
      if (decoded.kind === 'event' && isSessionEvent(decoded.event)) events.push(decoded.event);
    }
    this.drain();
    this.view.update((v) => ({
      ...v,
      loadingOlder: false,
      transcript: fillGap(v.transcript, gap.id, events, page.value.after),
    }));
  }

  /** Folds what is waiting now, as one batch (a frame came, or someone needs the state current). */
  drain(): void {
    this.frameAsked = false;
    if (this.pending.length === 0 || this.closed) return;
    const batch = this.pending;
    this.pending = [];
    const view = this.view.get();
    let transcript = view.transcript;
    let run: SessionEvent[] = [];
    const fold = (): boolean => {
      const result = applyBatch(transcript, run);
      transcript = result.state;
      run = [];
      return !result.gap;
    };
    for (const item of batch) {
      if (item.type !== 'skip') {
        run.push(item);
        continue;
      }
      if (!fold()) return this.resubscribe(view, transcript);
      transcript = skipTo(transcript, item.after, item.to);
    }
    if (!fold()) return this.resubscribe(view, transcript);
    if (transcript === view.transcript) return;
    this.view.set({ ...view, transcript, watchError: null });
    this.scheduleSave();
  }

  /**
   * The client guarantees order within a watch, so a gap means our state and its watch disagree:
   * keep what folded and ask again from there.
   */
  private resubscribe(view: FeedView, transcript: TranscriptState): void {
    this.pending = [];
    if (transcript !== view.transcript) this.view.set({ ...view, transcript });
    this.client.unwatch(this.sessionId);
    this.client.watch(this.sessionId, transcript.lastSeq, { tail: WATCH_TAIL });
  }

  private enqueue(item: Pending): void {
    this.pending.push(item);
    if (this.pending.length >= MAX_PENDING_EVENTS) return this.drain();
    if (this.frameAsked) return;
    this.frameAsked = true;
    this.frame(() => this.drain());
  }

  watchFailed(error: ProtocolError): void {
    this.view.update((view) => ({ ...view, watchError: error }));
  }

  /** Writes the transcript now (the page is being hidden, or the feed closes). */
  async flush(): Promise<void> {
    if (this.saveTimer !== undefined) this.clock.clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.drain();
    const { transcript, savedSeq, loaded } = this.view.get();
    if (!loaded || transcript.lastSeq === savedSeq) return;
    // The cache keeps the newest items: what is trimmed is read again as pages when scrolled to.
    await this.cache.putTranscript(this.hostId, this.sessionId, trimForCache(transcript), this.clock.now());
    this.view.update((view) => ({ ...view, savedSeq: Math.max(view.savedSeq, transcript.lastSeq) }));
  }

  close(): void {
    if (this.closed) return;
    this.drain();
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
