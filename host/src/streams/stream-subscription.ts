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
}

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
    this.source.release(this);
    this.options.onEnd?.();
  }

  private pump(): void {
    if (this.ended || this.waitingForDrain || this.outbox.closed) return;
    for (;;) {
      const room = this.window.room;
      if (room === 0) return this.block();
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
