/**
 * Counters over a closed list of names, each registered at zero: a name that is not on the list
 * does not type-check, so every refusal or drop is counted under a reason someone chose, and a
 * reader can see every reason a server may give before any has happened.
 */
export class Counters<Name extends string> {
  private readonly counts: Map<Name, number>;

  constructor(names: readonly Name[]) {
    this.counts = new Map(names.map((name) => [name, 0]));
  }

  /** True when `name` is on the list (for a name that arrives as a plain string). */
  has(name: string): name is Name {
    return this.counts.has(name as Name);
  }

  add(name: Name, by = 1): void {
    const count = this.counts.get(name);
    // The type admits only listed names; one that is not listed is a bug in the list.
    if (count === undefined) throw new Error(`counter ${name} is not on the list`);
    this.counts.set(name, count + by);
  }

  get(name: Name): number {
    return this.counts.get(name) ?? 0;
  }

  /** The counters that moved, by name: what `tether status` shows. */
  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts].filter(([, n]) => n > 0).sort(([a], [b]) => a.localeCompare(b)));
  }

  /** Every counter on the list, zeros included. */
  all(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** `prefix` before each reason, typed as the names it makes. */
export function prefixed<P extends string, R extends string>(prefix: P, reasons: readonly R[]): `${P}${R}`[] {
  return reasons.map((reason) => `${prefix}${reason}` as const);
}
