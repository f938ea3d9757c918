// npm run chaos [-- --short]: the chaos suite. A host with two relay nodes sharing Redis, a machine,
// a phone and a run without end, while an adversary does each fault in turn (hostile relay close
// codes, drain loops, Redis stopped, restarted and written to, unsealed close codes to the machine,
// a socket flood). Prints, per fault: how long after its end the host and the machine answered
// again, events lost and doubled, the CPU the rig spent while it lasted, and the host links made
// meanwhile. Exits 1 when a goal is missed: the host back within 2 s of every fault's end through
// an honest relay, nothing lost, nothing doubled, nothing left that only a restart would clear.
// Ends with `N passed, N failed, 0 skipped`: a row a fault, and one for what is left after them.
// Needs `npm run build` and /usr/bin/redis-server.
import { existsSync } from 'node:fs';
import { BACK_GOAL_MS, runChaos } from './chaos.js';

if (!existsSync('/usr/bin/redis-server')) {
  console.error('chaos: needs /usr/bin/redis-server');
  process.exit(1);
}
const short = process.argv.includes('--short');
const started = Date.now();
const report = await runChaos({ scale: short ? 0.3 : 1, log: (text) => console.log(text) });
const misses = report.results.filter((r) => !r.met);
console.log('');
console.log(
  `chaos: ${report.results.length} faults, ${report.results.length - misses.length} met the goal ` +
    `(host back within ${BACK_GOAL_MS} ms, 0 lost, 0 doubled), ${misses.length} missed; ` +
    `${report.events} events delivered; ${Math.round((Date.now() - started) / 1000)} s`,
);
if (report.leftover) console.log(`chaos: left after the faults: ${report.leftover}`);
// One row a fault, and one for what is left after them all, in the form CI adds up (.ci/run).
const failed = misses.length + (report.leftover ? 1 : 0);
console.log(`${report.results.length + 1 - failed} passed, ${failed} failed, 0 skipped`);
process.exit(failed > 0 ? 1 : 0);
