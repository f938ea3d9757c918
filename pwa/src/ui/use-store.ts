import { useEffect, useState } from 'preact/hooks';
import type { Store } from '../lib/store.js';

/** Re-renders when the store changes; a missing store reads as `fallback`. */
export function useStore<T>(store: Store<T>): T;
export function useStore<T>(store: Store<T> | undefined, fallback: T): T;
export function useStore<T>(store: Store<T> | undefined, fallback?: T): T {
  const value = store ? store.get() : (fallback as T);
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!store) return undefined;
    const off = store.subscribe(() => setTick((n) => n + 1));
    // A change between this render and the subscription would otherwise be missed.
    if (!Object.is(store.get(), value)) setTick((n) => n + 1);
    return off;
  }, [store]);
  return value;
}
