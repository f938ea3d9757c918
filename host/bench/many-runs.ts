// npm run bench -- many-runs
// One host, many runs: RUNS sessions streaming at once, each followed by every one of DEVICES paired
// devices, against one session followed by one device at the same total rate, in turns in the
// same run. For each: the latency from an event appended on the host to its arrival, decrypted, at
// a device (p50, p99 over every delivery), and the host's CPU (user + system, process.cpuUsage
// around the streaming) per 1,000 events appended. The devices run in a process of their own
// (many-runs-devices.ts), as phones would be elsewhere, so the CPU figure is the host's alone; the
// delay is the event's `at` (the host's clock at the append) to the device's clock at delivery,
// in whole ms. Events are `message.delta`s appended every TICK_MS, RATE a second in all (a fast
// run streams about ten a second: text coalesced to four, a tool call about five): round the
// sessions in turn; each turn's CPU runs until every delivery has landed. SCALE_RUNS (50) and
// SCALE_DEVICES (10) set the load. Target: p99 ≤ 50 ms with many.
import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchRowLine, percentile } from '@tether/shared-protocol/testing';
import { pairDevice } from '../test/support/remote-device.js';
import { startTestHost } from '../test/support/test-host.js';
import { idleSession, nextMessage } from './bench-support.js';
import type { BenchDeviceSpec } from './many-runs-devices.js';

const RUNS = Number(process.env['SCALE_RUNS'] ?? 50);
const DEVICES = Number(process.env['SCALE_DEVICES'] ?? 10);
/** Events a second, over all the streaming sessions: ten each. */
const RATE = RUNS * 10;
const TICK_MS = 10;
/** Seconds each side streams in one turn, and the turns each side gets (the first thrown away). */
const TURN_S = 5;
const TURNS = 4;
const TARGET_P99_MS = 50;

const t = await startTestHost({ remote: { bind: '127.0.0.1', port: 0, roots: [] } });
const many: string[] = [];
for (let i = 0; i < RUNS; i++) many.push(await idleSession(t, `run ${i}`));
const alone = await idleSession(t, 'the baseline run');

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
// The host lets ten pairings a minute through: the first device also follows the baseline's
// session, the only one streaming in the baseline's turns.
const specs: BenchDeviceSpec[] = [];
for (let i = 0; i < DEVICES; i++) {
  const paired = await pairDevice(t, { label: `bench ${i}` });
  const follow = (id: string, label: string) => ({ id, after: t.host.parts.log.lastSeq(id), label });
  specs.push({
    deviceId: paired.reply.deviceId,
    publicKey: b64(paired.keys.publicKey),
    secretKey: b64(paired.keys.secretKey),
    hostBoxPublicKey: b64(paired.hostBoxPublicKey),
    sessions: [...many.map((id) => follow(id, 'many')), ...(i === 0 ? [follow(alone, 'alone')] : [])],
  });
}

const devices: ChildProcess = fork(fileURLToPath(new URL('./many-runs-devices.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const next = <T>(type: string) => nextMessage<T>(devices, type);
devices.send({ t: 'connect', url: t.url, devices: specs });
const ready = await next<{ open: number }>('ready');
console.log(`${ready.open} devices open, following ${RUNS} sessions each (the first, the baseline's too)`);
// Every device hears every session it follows before anything is measured.
for (let i = 0; ; i++) {
  for (const id of [...many, alone])
    t.host.parts.log.append(id, { type: 'message.delta', messageId: 'm', text: 'hello' });
  await new Promise((r) => setTimeout(r, 300));
  devices.send({ t: 'heard' });
  const heard = await next<{ unheard: number }>('heard');
  if (heard.unheard === 0) {
    console.log('  every watch held');
    break;
  }
  if (i === 100) throw new Error(`${heard.unheard} (device, session) pairs never heard from`);
}

/** Streams RATE events a second round `sessions` for TURN_S; resolves to how many and the host's CPU µs. */
async function stream(sessions: readonly string[]): Promise<{ events: number; cpuUs: number }> {
  const perTick = (RATE * TICK_MS) / 1000;
  const ticks = (TURN_S * 1000) / TICK_MS;
  const start = process.cpuUsage();
  let events = 0;
  for (let tick = 0; tick < ticks; tick++) {
    for (let i = 0; i < perTick; i++) {
      t.host.parts.log.append(sessions[events % sessions.length]!, {
        type: 'message.delta',
        messageId: 'm',
        text: 'some streamed words ',
      });
      events++;
    }
    await new Promise((r) => setTimeout(r, TICK_MS));
  }
  // Every delivery lands before the CPU is read.
  const expected = sessions === many ? events * DEVICES : events;
  for (let i = 0; i < 600; i++) {
    devices.send({ t: 'count' });
    const { counts } = await next<{ counts: Record<string, number> }>('count');
    if ((counts[sessions === many ? 'many' : 'alone'] ?? 0) >= expected) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const used = process.cpuUsage(start);
  return { events, cpuUs: used.user + used.system };
}

const totals = {
  many: { events: 0, cpuUs: 0, delays: [] as number[] },
  alone: { events: 0, cpuUs: 0, delays: [] as number[] },
};
for (let turn = 0; turn < TURNS; turn++) {
  for (const [name, sessions] of [
    ['many', many],
    ['alone', [alone]],
  ] as const) {
    const { events, cpuUs } = await stream(sessions);
    devices.send({ t: 'report' });
    const report = await next<{ delays: Record<string, number[]> }>('report');
    if (turn === 0) continue;
    totals[name].events += events;
    totals[name].cpuUs += cpuUs;
    totals[name].delays.push(...(report.delays[name] ?? []));
  }
}
devices.send({ t: 'stop' });

const figures = (name: 'many' | 'alone') => {
  const { events, cpuUs, delays } = totals[name];
  return {
    events,
    deliveries: delays.length,
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    cpuMsPer1000: cpuUs / 1000 / (events / 1000),
  };
};
const m = figures('many');
const a = figures('alone');
console.log(
  `event appended → decrypted on a device, ${RATE} events a second, ${TURNS - 1} turns of ${TURN_S} s a side (after one unmeasured):`,
);
for (const [name, f] of [
  [`${RUNS} sessions × ${DEVICES} devices`, m],
  ['1 session × 1 device (baseline)', a],
] as const) {
  console.log(
    `  ${name.padEnd(34)} p50 ${f.p50} ms, p99 ${f.p99} ms (${f.deliveries} deliveries of ${f.events} events); host CPU ${f.cpuMsPer1000.toFixed(0)} ms per 1,000 events`,
  );
}
console.log(
  `  many p99 ${m.p99} ms against the target ≤ ${TARGET_P99_MS} ms: ${m.p99 <= TARGET_P99_MS ? 'met' : 'not met'}; host CPU per 1,000 events ${(m.cpuMsPer1000 / a.cpuMsPer1000).toFixed(2)}× the baseline's (${DEVICES} deliveries each, not 1)`,
);
console.log(
  benchRowLine({
    id: 'many-runs.p99-ms',
    label: `event → device p99 with ${RUNS} sessions streaming to ${DEVICES} devices, against 50 ms`,
    ratio: m.p99 / TARGET_P99_MS,
    better: 'lower',
    target: 1,
    detail: { ...m, baselineP99: a.p99, baselineCpuMsPer1000: a.cpuMsPer1000 },
  }),
);
await t.close();
