// CI's bench step: runs the ratio benches bench/baseline.json names, compares each ratio with the
// committed baseline and fails on a regression beyond the stated tolerance. Ratios only: each is
// measured against its own baseline in the same process, so a busy or slow machine moves both
// sides alike; absolute times on a shared machine mean nothing.
//
//   node scripts/bench-compare.mjs [--json file]   compare (and keep the measured rows)
//   node scripts/bench-compare.mjs --update        measure and write the baseline anew
//
// A row is worse when, for `higher` rows, ratio < baseline × (1 − tolerance), and for `lower`
// rows, ratio > baseline × (1 + tolerance), or beyond the row's own `limit` where it names one.
// A bench whose rows come out worse is run once more before it counts (a burst of load from
// elsewhere on a 2-core machine can halve one figure), and a row the baseline names that no bench
// printed fails. Ends with `N passed, N failed, N skipped`, one per row, for .ci/run to add to its
// total.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { root } from './run.mjs';
import { runBenches } from './bench.mjs';

const BASELINE = join(root, 'bench', 'baseline.json');
const args = process.argv.slice(2);
const update = args.includes('--update');
const jsonAt = args.indexOf('--json');
const jsonOut = jsonAt >= 0 ? args[jsonAt + 1] : undefined;

const baseline = JSON.parse(readFileSync(BASELINE, 'utf8'));
const benches = baseline.benches;

function verdict(row, base) {
  const tolerance = base.tolerance ?? baseline.tolerance;
  // A row measured against its target (a p99 against 50 ms) may name the limit itself.
  const limit = base.limit ?? (base.better === 'higher' ? base.ratio * (1 - tolerance) : base.ratio * (1 + tolerance));
  const worse = base.better === 'higher' ? row.ratio < limit : row.ratio > limit;
  return { worse, limit, tolerance };
}

let { rows, failed } = await runBenches(benches);

if (update) {
  const next = { ...baseline, measuredAt: new Date().toISOString(), rows: {} };
  for (const row of rows) {
    const old = baseline.rows[row.id];
    next.rows[row.id] = {
      ratio: Number(row.ratio.toFixed(3)),
      better: row.better,
      ...(old?.tolerance !== undefined ? { tolerance: old.tolerance } : {}),
      ...(old?.limit !== undefined ? { limit: old.limit } : {}),
      label: row.label,
    };
  }
  writeFileSync(BASELINE, `${JSON.stringify(next, null, 2)}\n`);
  console.log(`wrote ${rows.length} rows to bench/baseline.json`);
  process.exit(failed.length > 0 ? 1 : 0);
}

const worseBenches = () =>
  [
    ...new Set(rows.filter((r) => baseline.rows[r.id] && verdict(r, baseline.rows[r.id]).worse).map((r) => r.bench)),
  ].filter((b) => !failed.includes(b));
const again = [...new Set([...worseBenches(), ...failed])];
if (again.length > 0) {
  console.log(`\n# measuring again: ${again.join(', ')}`);
  const second = await runBenches(again);
  rows = [...rows.filter((r) => !again.includes(r.bench)), ...second.rows];
  failed = second.failed;
}

let passed = 0;
let failures = 0;
console.log('\n# bench ratios against bench/baseline.json');
for (const [id, base] of Object.entries(baseline.rows)) {
  const row = rows.find((r) => r.id === id);
  if (!row) {
    failures++;
    console.log(`  FAIL ${id}: no bench printed this row`);
    continue;
  }
  const { worse, limit, tolerance } = verdict(row, base);
  const sign = base.better === 'higher' ? '≥' : '≤';
  const bound = base.limit !== undefined ? 'its limit' : `tolerance ${tolerance * 100}%`;
  const line = `${id}: ${row.ratio.toFixed(3)} against ${base.ratio} (must be ${sign} ${limit.toFixed(3)}, ${bound})`;
  if (worse) failures++;
  else passed++;
  console.log(`  ${worse ? 'FAIL' : 'ok  '} ${line}`);
}
for (const name of failed) {
  failures++;
  console.log(`  FAIL bench ${name} exited with an error`);
}
if (jsonOut) writeFileSync(resolve(process.cwd(), jsonOut), `${JSON.stringify({ rows, failed }, null, 2)}\n`);
console.log(`${passed} passed, ${failures} failed, 0 skipped`);
process.exit(failures > 0 ? 1 : 0);
