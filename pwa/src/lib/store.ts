/**
 * A value that can be watched: the app's state lives in a few of these (hosts, each host's
 * connection, sessions, transcripts) and screens subscribe with `useStore`. Listeners run
 * synchronously on every change; `set` with the same value does nothing.
 */
export class Store<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private value: T) {}

  get(): T {
    return this.value;
  }

  set(value: T): void {
    if (Object.is(value, this.value)) return;
    this.value = value;
    for (const listener of [...this.listeners]) listener(value);
  }

  update(change: (value: T) => T): void {
    this.set(change(this.value));
  }

  subscribe(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
