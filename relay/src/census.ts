/** Counts of a node's connections, kept by each connection as it moves through its life, so that
 * admission checks (node full, too many unauthenticated) cost nothing per connection. */
export class Census {
  /** Every open socket, authenticated or not. */
  open = 0;
  /** Sockets that have not yet authenticated. */
  pending = 0;

  opened(): void {
    this.open++;
    this.pending++;
  }

  authenticated(): void {
    this.pending--;
  }

  closed(wasAuthenticated: boolean): void {
    this.open--;
    if (!wasAuthenticated) this.pending--;
  }
}
