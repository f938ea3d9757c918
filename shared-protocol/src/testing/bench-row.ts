/**
 * One figure of a bench, as a ratio against a baseline measured in the same run, in a line that
 * `npm run bench -- … --json` (scripts/bench.mjs) collects into one file and CI compares with the
 * committed baseline (bench/baseline.json). Absolute times on a shared machine mean nothing; the
 * ratio is what is kept.
 */
export interface BenchRow {
  /** Stable id, `<bench>.<figure>`: the key in the baseline file. */
  id: string;
  /** What it measures, as the bench prints it. */
  label: string;
  /** The measured ratio. */
  ratio: number;
  /** Which way is better: `higher` (throughput) or `lower` (time, size). */
  better: 'higher' | 'lower';
  /** The figure the project aims for, when there is one (issue 25's table). */
  target?: number;
  /** Absolute figures for the reader (never compared): e.g. `{ perSecond: 1200 }`. */
  detail?: Record<string, number>;
}

/** The prefix of a row line on stdout; bench.mjs takes such lines out of what it shows. */
export const BENCH_ROW_PREFIX = 'bench-row ';

/** The line to print for a row (shared-protocol has no console of its own: the bench prints it). */
export function benchRowLine(row: BenchRow): string {
  return BENCH_ROW_PREFIX + JSON.stringify(row);
}

/** The `p`th percentile of a bench's samples (nearest rank; 0 for none). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
