const marked = new Set<string>();

/**
 * A Performance API mark, once per page load: the first-render bench reads `tether:shell-shown`
 * and `tether:transcript-shown` (ms since navigation start). Costs nothing when nobody reads them.
 */
export function markOnce(name: string): void {
  if (marked.has(name)) return;
  marked.add(name);
  performance.mark(name);
}
