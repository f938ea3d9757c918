/**
 * One-to-many notification made before its listeners: a part that reports something (a machine's
 * status, an MCP server's failure) is built with `emit`, and the parts that hear it subscribe once
 * they exist. That is how the wiring builds in dependency order without handing a part to another
 * before it is made.
 */
export class Signal<T> {
  private readonly listeners = new Set<(value: T) => void>();

  emit(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  /** Returns the way to stop listening. */
  on(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
