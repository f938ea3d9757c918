import type { Result } from '@tether/shared-protocol';
import { MAX_BATCH_MESSAGES, MAX_FRAME_PLAINTEXT, batchBytes, encodeBatch, fail, ok } from '@tether/shared-protocol';

/** What the batcher sends through: the connection's sealer and its transport. */
export interface BatchPort {
  /** Seals a plaintext, or the plaintext its parts make. */
  seal(plain: Uint8Array | readonly Uint8Array[]): Result<Uint8Array>;
  /** Writes a sealed frame (dropped once the connection closed). */
  write(frame: Uint8Array): void;
}

/** Runs `flush` once the code that queued has returned: `queueMicrotask`, so a lone message waits
 * for no timer and no turn of the event loop, only for the current task to finish. */
export type Defer = (flush: () => void) => void;

export interface BatchBounds {
  /** Messages in one frame, at most (the decoder's MAX_BATCH_MESSAGES). */
  messages: number;
  /** Plaintext bytes of one frame, at most, the batch's tag and lengths included. */
  bytes: number;
}

const DEFAULT_BOUNDS: BatchBounds = { messages: MAX_BATCH_MESSAGES, bytes: MAX_FRAME_PLAINTEXT };

/**
 * One connection's host → device messages on their way to the sealer. Until the device says it
 * takes batches (`channel.batch`), each message is sealed and written at once, as an older device
 * expects. After, the messages queued in one task go out together at its end: one frame when
 * there was one message, as before, and otherwise batches (batch-frame.ts) of at most `bounds`,
 * in order. A burst of events then costs the device one open per batch, not one per event.
 *
 * The queue lives only until the end of the task that filled it, and its bytes count as the
 * connection's buffered bytes (`pendingBytes`), so the outbox's back-pressure is what it was: a
 * paced sender sees them and stops, a live event over the high-water mark cuts the device off.
 */
export class SendBatcher {
  private queue: Uint8Array[] = [];
  private queued = 0;
  private scheduled = false;
  private batching = false;
  /** Frames written, and how many of them were batches. */
  readonly sent = { frames: 0, batches: 0 };

  constructor(
    private readonly port: BatchPort,
    private readonly defer: Defer = queueMicrotask,
    private readonly bounds: BatchBounds = DEFAULT_BOUNDS,
  ) {}

  /** The device takes batches from now on. */
  enable(): void {
    this.batching = true;
  }

  get enabled(): boolean {
    return this.batching;
  }

  /** Plaintext bytes queued and not yet sealed. */
  get pendingBytes(): number {
    return this.queued;
  }

  /** Sends one message's plaintext; `frame-too-large` when no frame can hold it. */
  send(plain: Uint8Array): Result<void> {
    if (!this.batching) {
      const frame = this.port.seal(plain);
      if (!frame.ok) return frame;
      this.write(frame.value, false);
      return ok(undefined);
    }
    if (plain.length > MAX_FRAME_PLAINTEXT) {
      return fail('frame-too-large', `message of ${plain.length} bytes is over the frame limit`);
    }
    this.queue.push(plain);
    this.queued += plain.length;
    if (!this.scheduled) {
      this.scheduled = true;
      this.defer(() => this.flush());
    }
    return ok(undefined);
  }

  /** Seals and writes what is queued now (before a goodbye closes the connection, say). */
  flush(): void {
    this.scheduled = false;
    const queue = this.queue;
    this.queue = [];
    this.queued = 0;
    let start = 0;
    let bytes = 0;
    for (let i = 0; i < queue.length; i++) {
      const length = queue[i]!.length;
      const count = i - start;
      if (count > 0 && (count >= this.bounds.messages || batchBytes(count + 1, bytes + length) > this.bounds.bytes)) {
        this.sealGroup(queue.slice(start, i));
        start = i;
        bytes = 0;
      }
      bytes += length;
    }
    if (start < queue.length) this.sealGroup(queue.slice(start));
  }

  private sealGroup(group: Uint8Array[]): void {
    const batch = group.length > 1;
    // Within the bounds by construction: a seal fails here only once the counter is spent.
    const frame = this.port.seal(batch ? encodeBatch(group) : group[0]!);
    if (frame.ok) this.write(frame.value, batch);
  }

  private write(frame: Uint8Array, batch: boolean): void {
    this.sent.frames++;
    if (batch) this.sent.batches++;
    this.port.write(frame);
  }
}
