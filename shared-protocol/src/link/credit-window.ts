/**
 * The sender's side of credit-based flow control: at most `limit` units (bytes, usually) sent and
 * not yet acknowledged by the receiver. The window does not queue anything itself; when it is full
 * the sender stops producing (pauses its source: nothing is dropped, the source is held back) until
 * acknowledgements bring what is in flight down to `reopenAt`.
 *
 * Positions are counted as running totals (stream offsets), so a receiver may acknowledge either
 * a count (`ack`) or everything before an offset (`ackTo`).
 */
export class CreditWindow {
  private sentTotal: number;
  private ackedTotal: number;
  private closed = false;

  /**
   * `reopenAt` defaults to half the window, so a steady reader does not pause and resume the
   * source on every chunk. `from` is the offset the stream starts at.
   */
  constructor(
    readonly limit: number,
    readonly reopenAt = limit / 2,
    from = 0,
  ) {
    this.sentTotal = this.ackedTotal = from;
  }

  /** Units sent and not yet acknowledged. */
  get inFlight(): number {
    return this.sentTotal - this.ackedTotal;
  }

  /** Units that may still be sent before the window is full (0 when full). */
  get room(): number {
    return Math.max(0, this.limit - this.inFlight);
  }

  /** The offset the next unit sent starts at. */
  get sent(): number {
    return this.sentTotal;
  }

  /** Everything before this offset is acknowledged. */
  get acked(): number {
    return this.ackedTotal;
  }

  /** Full: the sender holds its source back until `isPaused` turns false again. */
  get isPaused(): boolean {
    return this.closed;
  }

  /** Counts `units` sent; true when this send filled the window (pause the source now). */
  send(units: number): boolean {
    this.sentTotal += units;
    if (this.closed || this.inFlight < this.limit) return false;
    this.closed = true;
    return true;
  }

  /** Units the receiver will never get (dropped before they were sent): they count as acknowledged. */
  skip(units: number): void {
    this.sentTotal += units;
    this.ackedTotal += units;
  }

  /** The receiver took `units` more; true when this reopened the window (resume the source now). */
  ack(units: number): boolean {
    this.ackedTotal = Math.min(this.sentTotal, this.ackedTotal + Math.max(0, units));
    return this.reopen();
  }

  /**
   * The receiver holds everything before `offset`; an offset at or behind what is acknowledged is
   * ignored, one past what was sent counts as all of it. True when this reopened the window.
   */
  ackTo(offset: number): boolean {
    if (offset <= this.ackedTotal) return false;
    this.ackedTotal = Math.min(offset, this.sentTotal);
    return this.reopen();
  }

  private reopen(): boolean {
    if (!this.closed || this.inFlight > this.reopenAt) return false;
    this.closed = false;
    return true;
  }
}
