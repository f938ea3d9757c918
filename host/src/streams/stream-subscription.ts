import type { ChannelMessage, Clock, TetherEvent, TimerHandle } from '@tether/shared-protocol';
import { CreditWindow } from '@tether/shared-protocol';
import type { Outbox } from './outbox.js';
import { LOW_WATER_BYTES } from './outbox.js';
import type { Subscription } from './subscription.js';

/** Bytes of a stream read at `offset` (later than asked when older bytes were already dropped). */
export interface StreamChunk {
  offset: number;
  data: Uint8Array;
}

/** A reader of a stream source; the source calls `notify` when it has new bytes. */
export interface StreamReader {
  notify(): void;
}

/**
 * A byte stream several devices may read at their own pace (a terminal's output): a bounded
 * backlog addressed by byte offset. The source pauses its producer while any reader is blocked,
 * so the slowest attached reader sets the pace and nothing grows without bound.
 */
export interface StreamSource {
  /** A new reader, before its first read: the source notifies it of new bytes until released. */
  addReader(reader: StreamReader): void;
  read(offset: number, maxBytes: number): StreamChunk | undefined;
  setBlocked(reader: StreamReader, blocked: boolean): void;
  release(reader: StreamReader): void;
}

export interface StreamOptions {
  clock: Clock;
  /** Bytes sent and not yet acknowledged by the device, at most. */
  windowBytes: number;
  /** Bytes per message. */
  chunkBytes: number;
  /** Milliseconds a blocked reader may go without acknowledging before it is detached. */
  stallMs: number;
  /** The message carrying a chunk: a channel message, or a binary one (sent with `sendBinary`). */
  encode: (chunk: StreamChunk) => ChannelMessage | Uint8Array;
  /** The message telling the device it was detached, and why. */
  detached: (reason: string) => ChannelMessage;
  /** Called once when the subscription ends (detached, unsubscribed or the connection closed). */
  onEnd?: () => void;
  /** The source's state in place of its bytes, for a reader a window behind (see `StreamFrames`). */
  frames?: StreamFrames;
}

/**
 * How a stream whose reader fell a full window behind goes on without holding its source back:
 * the reader gets the source's state (a terminal's screen) at most every `frameMs` instead of its
 * bytes, and the bytes again once it has caught up and the source has slowed (less than half a
 * window left, and less than half a window written in a frame's time), as mosh does.
 */
export interface StreamFrames {
  frameMs: number;
  /** The offset one past the source's newest byte. */
  end(): number;
  /** The state as of an offset past `after`, and the message carrying it; undefined when the state
   * has not passed `after` yet. */
  frame(after: number): { offset: number; message: ChannelMessage } | undefined;
}

/** Milliseconds a reader may take to draw a state before the next is sent anyway: one a second
 * reaches even a reader that does not acknowledge, until it is detached for stalling. */
export const FRAME_WAIT_MS = 1000;

/**
 * A flow-controlled stream: at most a window of unacknowledged bytes in flight, paced also by the
 * connection's outbox so it never fills the queue the device's session watches share. A device
 * that stops acknowledging is detached from this stream with a reason after `stallMs`; its
 * other subscriptions and the connection go on.
 */
export class StreamSubscription implements Subscription, StreamReader {
  /** Offsets: sent, and acknowledged by the device. It sends again as soon as there is room. */
  private readonly window: CreditWindow;
  private blocked = false;
  private waitingForDrain = false;
  private stallTimer: TimerHandle | undefined;
  private ended = false;
  /** Sending states instead of bytes (`options.frames`), and when and where the last state went. */
  private framing = false;
  private frameTimer: TimerHandle | undefined;
  private lastFrame = { offset: 0, at: -Infinity };
  private endAtLastFrame = 0;

  constructor(
    readonly key: string,
    private readonly outbox: Outbox,
    private readonly source: StreamSource,
    from: number,
    private readonly options: StreamOptions,
  ) {
    this.window = new CreditWindow(options.windowBytes, options.windowBytes, from);
    source.addReader(this);
    this.pump();
  }

  /** Bytes sent so far: the offset the next chunk starts at. */
  get offset(): number {
    return this.window.sent;
  }

  /** Events routed to this stream (its end, say) go out in order with its chunks. */
  deliver(event: TetherEvent): void {
    if (this.ended) return;
    this.pump();
    this.outbox.send({ t: 'evt', event });
  }

  notify(): void {
    this.pump();
  }

  /** The device holds every byte before `offset`. */
  ack(offset: number): void {
    if (this.ended || offset <= this.window.acked) return;
    this.window.ackTo(offset);
    this.clearStall();
    this.pump();
  }

  /** Ends the stream for this device, telling it why. */
  detach(reason: string): void {
    if (this.ended) return;
    this.outbox.send(this.options.detached(reason));
    this.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.clearStall();
    if (this.frameTimer !== undefined) this.options.clock.clearTimeout(this.frameTimer);
    this.source.release(this);
    this.options.onEnd?.();
  }

  private pump(): void {
    if (this.ended || this.waitingForDrain || this.outbox.closed || this.framing) return;
    for (;;) {
      const room = this.window.room;
      if (room === 0) return this.full();
      if (this.outbox.buffered() >= LOW_WATER_BYTES) {
        this.waitingForDrain = true;
        void this.outbox.drained().then(() => {
          this.waitingForDrain = false;
          this.pump();
        });
        return;
      }
      const chunk = this.source.read(this.window.sent, Math.min(this.options.chunkBytes, room));
      if (!chunk || chunk.data.length === 0) return this.unblock();
      // Bytes dropped before this reader got them count as acknowledged: nobody will send them.
      if (chunk.offset > this.window.sent) this.window.skip(chunk.offset - this.window.sent);
      this.window.send(chunk.offset + chunk.data.length - this.window.sent);
      const message = this.options.encode(chunk);
      if (message instanceof Uint8Array) this.outbox.sendBinary?.(message);
      else this.outbox.send(message);
    }
  }

  private block(): void {
    if (!this.blocked) {
      this.blocked = true;
      this.source.setBlocked(this, true);
    }
    this.startStall();
  }

  /** A window is out: the source waits for the reader, or, with frames, only while it has no more. */
  private full(): void {
    if (!this.options.frames) return this.block();
    if (this.options.frames.end() > this.window.sent) return this.startFrames();
    this.startStall();
  }

  /** The reader is a window behind: the source goes on, and the reader gets its state instead. */
  private startFrames(): void {
    this.framing = true;
    this.endAtLastFrame = this.options.frames!.end();
    this.unblock();
    this.startStall();
    this.nextFrame();
  }

  private nextFrame(): void {
    this.frameTimer = this.options.clock.setTimeout(() => {
      this.frameTimer = undefined;
      this.frame();
    }, this.options.frames!.frameMs);
  }

  private frame(): void {
    if (this.ended || this.outbox.closed) return;
    const frames = this.options.frames!;
    const half = this.options.windowBytes / 2;
    const end = frames.end();
    const slowed = end - this.endAtLastFrame <= half;
    this.endAtLastFrame = end;
    if (slowed && this.window.inFlight <= half && end - this.window.sent <= half) {
      // Caught up, and the source no longer outruns it: bytes again, from the last state's offset
      // (the backlog still holds them).
      this.framing = false;
      return this.pump();
    }
    const drawn =
      this.window.acked >= this.lastFrame.offset || this.options.clock.now() - this.lastFrame.at >= FRAME_WAIT_MS;
    const state = drawn && this.outbox.buffered() < LOW_WATER_BYTES ? frames.frame(this.window.sent) : undefined;
    if (state) {
      // The bytes up to the state's offset are never sent to this reader: they count as taken.
      this.window.skip(state.offset - this.window.sent);
      this.lastFrame = { offset: state.offset, at: this.options.clock.now() };
      this.outbox.send(state.message);
      this.startStall();
    }
    this.nextFrame();
  }

  /** A reader that acknowledges nothing of what is out for `stallMs` is detached. */
  private startStall(): void {
    this.stallTimer ??= this.options.clock.setTimeout(() => {
      this.stallTimer = undefined;
      this.detach(`no acknowledgement for ${Math.round(this.options.stallMs / 1000)} s`);
    }, this.options.stallMs);
  }

  private unblock(): void {
    if (!this.blocked) return;
    this.blocked = false;
    this.source.setBlocked(this, false);
  }

  private clearStall(): void {
    if (this.stallTimer !== undefined) this.options.clock.clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }
}
