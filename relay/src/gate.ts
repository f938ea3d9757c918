/** A counter with a ceiling: at most `max` holders at once (requests waiting across a node). */
export class Gate {
  private held = 0;

  constructor(private readonly max: number) {}

  enter(): boolean {
    if (this.held >= this.max) return false;
    this.held++;
    return true;
  }

  leave(): void {
    if (this.held > 0) this.held--;
  }

  get size(): number {
    return this.held;
  }
}
