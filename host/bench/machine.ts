// npm run bench -- machine
// What a machine's link costs: a small command and a 1 MiB file read, run through the host's
// remote context → a sealed WebSocket on loopback → a machine agent (`startShare`, as
// `tether machine share` runs it) → the same execution code on this computer, against the same
// calls on the host's own local context, in the same run (p50, p99, ratio).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ExecutionContext } from '@tether/machine';
import { LocalContext, startShare } from '@tether/machine';
import { LOCAL_REMOTE, startTestHost } from '../test/support/test-host.js';

/** Small commands timed per side; each spawns a shell, so fewer than the file reads. */
const COMMAND_ROUNDS = 200;
const READ_ROUNDS = 200;
/** Rounds run and thrown away first, so neither side pays for a cold JIT or page cache. */
const WARMUP = 20;
const FILE_BYTES = 1024 * 1024;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Measured {
  times: number[];
  /** CPU time of this process per round (both ends of the link are in it), in ms. */
  cpuMs: number;
}

/**
 * Runs `local` and `remote` in turns, round by round, swapping which goes first: both sides see
 * the same load on a shared machine and the same process (a spawn's fork costs more in a bigger
 * process; run one side's rounds after the other's and the second side paid for it: 1.6–2.0× for
 * the command when the machine's rounds came second, 0.9–1.2× when they came first).
 */
async function measurePair(rounds: number, local: () => Promise<void>, remote: () => Promise<void>) {
  const sides = [
    { once: local, times: [] as number[], cpu: 0 },
    { once: remote, times: [] as number[], cpu: 0 },
  ];
  for (let i = 0; i < WARMUP + rounds; i++) {
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      await side.once();
      const took = performance.now() - start;
      const used = process.cpuUsage(cpu);
      if (i >= WARMUP) {
        side.times.push(took);
        side.cpu += used.user + used.system;
      }
    }
  }
  const [l, r] = sides.map((side): Measured => ({ times: side.times, cpuMs: side.cpu / 1000 / rounds }));
  return [l!, r!] as const;
}

const base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-machine-')));
const root = join(base, 'code');
mkdirSync(root);
// Text (a read returns text), 1 MiB of it.
const line = 'export const value = compute(42, "some text to read");\n';
writeFileSync(join(root, 'big.ts'), line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES));
const tokenFile = join(base, 'token');

const test = await startTestHost({ remote: LOCAL_REMOTE });
const { token } = test.host.parts.machines.tokens.create('bench', Date.now());
writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
const shared = await startShare({
  hostUrl: test.url,
  tokenFile,
  name: 'bench',
  roots: [root],
  dir: join(base, 'machine'),
  version: 'bench',
  env: { HOME: join(base, 'home') },
});
if (!shared.ok) throw new Error(shared.error.message);
try {
  const deadline = Date.now() + 10_000;
  while (!test.host.parts.machines.registry.isOnline('bench')) {
    if (Date.now() > deadline) throw new Error('the machine did not link');
    await new Promise((r) => setTimeout(r, 20));
  }
  const remote = test.host.parts.machines.registry.context('bench');
  if (!remote) throw new Error('no context for the machine');
  const local = new LocalContext();

  const command = (context: ExecutionContext) => async () => {
    const ran = await context.exec({
      command: 'echo hello',
      cwd: root,
      timeoutMs: 10_000,
      maxOutputBytes: 64 * 1024,
      signal: new AbortController().signal,
    });
    if (!ran.ok || ran.value.output.trim() !== 'hello') throw new Error(`command failed on ${context.place}`);
  };
  const read = (context: ExecutionContext) => async () => {
    const got = await context.readFile(root, 'big.ts', FILE_BYTES);
    if (!got.ok || got.value.text.length !== FILE_BYTES) throw new Error(`read failed on ${context.place}`);
  };

  const row = (what: string, local: Measured, remote: Measured) => {
    const [localTimes, remoteTimes] = [local.times, remote.times];
    const [lp50, lp99, rp50, rp99] = [
      percentile(localTimes, 50),
      percentile(localTimes, 99),
      percentile(remoteTimes, 50),
      percentile(remoteTimes, 99),
    ];
    console.log(
      `${what.padEnd(22)} local p50 ${lp50.toFixed(2)} ms, p99 ${lp99.toFixed(2)} ms | ` +
        `machine p50 ${rp50.toFixed(2)} ms, p99 ${rp99.toFixed(2)} ms | ratio p50 ${(rp50 / lp50).toFixed(2)}×, ` +
        `p99 ${(rp99 / lp99).toFixed(2)}×`,
    );
    // On a shared machine wall time swings with the load; this process's own CPU time does less
    // (the machine's column includes both ends of the link, which share this process).
    console.log(
      `${''.padEnd(22)} CPU per call: local ${local.cpuMs.toFixed(2)} ms | machine ${remote.cpuMs.toFixed(2)} ms | ` +
        `ratio ${(remote.cpuMs / local.cpuMs).toFixed(2)}×`,
    );
  };
  console.log('host → machine over a sealed loopback link, against the host running the same locally:');
  row(`command (${COMMAND_ROUNDS}×)`, ...(await measurePair(COMMAND_ROUNDS, command(local), command(remote))));
  row(`1 MiB read (${READ_ROUNDS}×)`, ...(await measurePair(READ_ROUNDS, read(local), read(remote))));
} finally {
  await shared.value.stop();
  await test.close();
  rmSync(base, { recursive: true, force: true });
}
