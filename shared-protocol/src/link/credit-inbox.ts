/**
 * The receiver's side of credit-based flow control: what the sender sent, held until the reader
 * takes it, and acknowledged only as it is taken, so a paused or slow reader holds the sender back
 * (its CreditWindow fills) instead of filling memory here. Bounded at `maxHeld` units: a sender
 * honouring its window never gets near it, so passing it means the sender ignores flow control,
 * and `hold` says so for the caller to end the stream (nothing is dropped silently).
 */
export class CreditInbox<T> {
  private readonly items: T[] = [];
  private heldUnits = 0;

  constructor(
    private readonly maxHeld: number,
    private readonly unitsOf: (item: T) => number,
  ) {}

  /** Units held and not yet taken. */
  get held(): number {
    return this.heldUnits;
  }

  get isEmpty(): boolean {
    return this.items.length === 0;
  }

  /** Holds one more item; false when that passes `maxHeld` (the sender ignores its window). */
  hold(item: T): boolean {
    this.items.push(item);
    this.heldUnits += this.unitsOf(item);
    return this.heldUnits <= this.maxHeld;
  }

  /**
   * Hands held items to `take`, oldest first, while `ready()` says the reader takes more; returns
   * the units handed on, which the caller acknowledges to the sender (0: nothing to acknowledge).
   */
  drain(ready: () => boolean, take: (item: T) => void): number {
    let taken = 0;
    while (this.items.length > 0 && ready()) {
      const item = this.items.shift()!;
      const units = this.unitsOf(item);
      this.heldUnits -= units;
      taken += units;
      take(item);
    }
    return taken;
  }

  /** Forgets everything held (the stream ended). */
  clear(): void {
    this.items.length = 0;
    this.heldUnits = 0;
  }
}
