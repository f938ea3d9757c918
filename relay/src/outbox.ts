/**
 * What the relay holds for one receiver: every frame handed to its socket and not yet written out
 * to the kernel. A frame counts from `push` until the socket's write callback; the bytes themselves
 * sit in the socket's buffer, and this is their exact account. Bounded in bytes and frames, per
 * receiver and (through the shared budget) per node; on a host link, also per device connection
 * (`share`), so one device cannot fill its host's link for the others.
 *
 * `push` never buffers beyond the bounds: it answers why it refused, and the caller closes whoever
 * must go (the slow receiver, or the device that exceeded its share).
 */

/** Owner of frames that belong to no device connection (control frames): bounded by the total only. */
export const CONTROL = -1;

export type OutboxVerdict = 'sent' | 'share-full' | 'full' | 'budget-full' | 'closed';

export interface OutboxLimits {
  maxBytes: number;
  maxFrames: number;
  /** Per-owner caps; absent on an outbox with a single owner. */
  shareBytes?: number;
  shareFrames?: number;
}

/** Bytes queued across all outboxes of a node. */
export class ByteBudget {
  used = 0;
  highWater = 0;

  constructor(readonly max: number) {}

  take(n: number): boolean {
    if (this.used + n > this.max && this.used > 0) return false;
    this.used += n;
    if (this.used > this.highWater) this.highWater = this.used;
    return true;
  }

  give(n: number): void {
    this.used -= n;
  }
}

/** A socket: writes bytes and calls `done` once they have left the process (or failed). */
export interface OutboxSink {
  send(bytes: Uint8Array, done: () => void): void;
}

export class Outbox {
  private queuedBytes = 0;
  private queuedFrames = 0;
  private peakBytes = 0;
  /** Per-owner accounts, made on the first owned frame (a device's outbox has none). */
  private owners: Map<number, { bytes: number; frames: number }> | undefined;
  private closed = false;

  constructor(
    private readonly limits: OutboxLimits,
    private readonly budget: ByteBudget,
    private readonly sink: OutboxSink,
  ) {}

  /**
   * Hands `bytes` to the socket if every bound allows. A frame always fits an empty outbox (or an
   * owner with nothing queued), so the largest frame passes however small the bounds.
   */
  push(bytes: Uint8Array, owner = CONTROL): OutboxVerdict {
    if (this.closed) return 'closed';
    const n = bytes.length;
    const share = owner === CONTROL ? undefined : this.owners?.get(owner);
    if (share && this.limits.shareBytes !== undefined && this.limits.shareFrames !== undefined) {
      if (share.bytes + n > this.limits.shareBytes || share.frames + 1 > this.limits.shareFrames) return 'share-full';
    }
    if (
      this.queuedFrames > 0 &&
      (this.queuedBytes + n > this.limits.maxBytes || this.queuedFrames + 1 > this.limits.maxFrames)
    ) {
      return 'full';
    }
    if (!this.budget.take(n)) return 'budget-full';
    this.queuedBytes += n;
    this.queuedFrames++;
    if (this.queuedBytes > this.peakBytes) this.peakBytes = this.queuedBytes;
    if (owner !== CONTROL) {
      if (share) {
        share.bytes += n;
        share.frames++;
      } else (this.owners ??= new Map()).set(owner, { bytes: n, frames: 1 });
    }
    let once = false;
    this.sink.send(bytes, () => {
      if (once) return;
      once = true;
      this.written(n, owner);
    });
    return 'sent';
  }

  /** Stops accounting: what is still in the socket is given back to the budget, and later write
   * callbacks are ignored. The caller destroys or closes the socket. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.budget.give(this.queuedBytes);
    this.queuedBytes = 0;
    this.queuedFrames = 0;
    this.owners = undefined;
  }

  get bytes(): number {
    return this.queuedBytes;
  }

  get frames(): number {
    return this.queuedFrames;
  }

  /** The most bytes this outbox has held at once. */
  get highWater(): number {
    return this.peakBytes;
  }

  ownerBytes(owner: number): number {
    return this.owners?.get(owner)?.bytes ?? 0;
  }

  private written(n: number, owner: number): void {
    if (this.closed) return;
    this.queuedBytes -= n;
    this.queuedFrames--;
    this.budget.give(n);
    if (owner === CONTROL) return;
    const share = this.owners?.get(owner);
    if (!share) return;
    share.bytes -= n;
    share.frames--;
    if (share.frames === 0) this.owners!.delete(owner);
  }
}
