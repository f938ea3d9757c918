import { CreditWindow, MAX_OUTPUT_CHUNK_BYTES, OUTPUT_WINDOW_BYTES } from '@tether/shared-protocol';

/** What a live stream's source can be told: stop producing, or go on. */
export interface StreamSource {
  pause(): void;
  resume(): void;
}

export interface LiveStream<H extends StreamSource> {
  readonly handle: H;
  readonly window: CreditWindow;
}

/**
 * The streams a machine runs for its host, each with its own credit window: output goes out in
 * pieces of at most MAX_OUTPUT_CHUNK_BYTES, and once OUTPUT_WINDOW_BYTES are unacknowledged the
 * source is paused (it blocks; nothing is dropped) until the host's acknowledgements bring what
 * is in flight down to half the window. Keyed by the id the host chose.
 */
export class LiveStreams<H extends StreamSource> {
  private readonly live = new Map<string, LiveStream<H>>();

  get size(): number {
    return this.live.size;
  }

  has(id: string): boolean {
    return this.live.has(id);
  }

  /** The handle of a live stream, if it is one. */
  handle(id: string): H | undefined {
    return this.live.get(id)?.handle;
  }

  add(id: string, handle: H): LiveStream<H> {
    const entry: LiveStream<H> = { handle, window: new CreditWindow(OUTPUT_WINDOW_BYTES) };
    this.live.set(id, entry);
    return entry;
  }

  /** Still the stream under `id` (not ended, not replaced after the link dropped)? */
  isCurrent(id: string, entry: LiveStream<H>): boolean {
    return this.live.get(id) === entry;
  }

  /** Sends `chunk` in pieces through `send`, pausing the source once its window is full. */
  output(entry: LiveStream<H>, chunk: Uint8Array, send: (piece: Uint8Array) => void): void {
    let filled = false;
    for (let at = 0; at < chunk.length; at += MAX_OUTPUT_CHUNK_BYTES) {
      const piece = chunk.subarray(at, at + MAX_OUTPUT_CHUNK_BYTES);
      send(piece);
      if (entry.window.send(piece.length)) filled = true;
    }
    if (filled) entry.handle.pause();
  }

  /** The host took `bytes` more of this stream's output. */
  ack(id: string, bytes: number): void {
    const entry = this.live.get(id);
    if (entry?.window.ack(bytes)) entry.handle.resume();
  }

  /** The stream ended: forgotten, and true when it was still the current one under `id`. */
  end(id: string, entry: LiveStream<H>): boolean {
    if (this.live.get(id) !== entry) return false;
    this.live.delete(id);
    return true;
  }

  /** The link dropped: every stream is handed to `kill` and forgotten. */
  clear(kill: (handle: H) => void): void {
    for (const entry of this.live.values()) kill(entry.handle);
    this.live.clear();
  }
}
