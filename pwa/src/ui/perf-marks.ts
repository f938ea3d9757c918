const marked = new Set<string>();
const waiting = new Map<string, (() => void)[]>();

/**
 * A Performance API mark, once per page load: the first-render bench reads `tether:shell-shown`
 * and `tether:transcript-shown` (ms since navigation start). Costs nothing when nobody reads them.
 */
export function markOnce(name: string): void {
  if (marked.has(name)) return;
  marked.add(name);
  performance.mark(name);
  for (const run of waiting.get(name) ?? []) run();
  waiting.delete(name);
}

/** Runs `run` once, when the first of `names` is marked (at once if one was), or after `ms`. */
export function afterMark(names: readonly string[], ms: number, run: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    run();
  };
  const timer = setTimeout(once, ms);
  if (names.some((name) => marked.has(name))) return once();
  for (const name of names) waiting.set(name, [...(waiting.get(name) ?? []), once]);
}
