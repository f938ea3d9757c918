// npm run bench -- share
// Whether a crowd of viewers on a share link slows the owner's devices: the latency from an event
// appended on the host to its arrival, decrypted, at the owner's device (p50, p99), for events of a
// session 200 viewers follow through one link, against events of a session nobody else follows,
// measured in turns in the same run. The viewers run in a process of their own (share-viewers.ts) at
// the lowest CPU priority: their decrypting is other computers' work, and on this machine's two
// cores it would otherwise be counted against the host. The host serves them after the owner's
// devices. Events come at a
// fast run's pace (PACE_MS apart: text is coalesced to four a second, a tool call is about five
// events), one at a time.
import type { SessionEvent } from '@tether/shared-protocol';
import { benchRowLine, percentile } from '@tether/shared-protocol/testing';
import { fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { connectDevice, pairDevice, until } from '../test/support/remote-device.js';
import { startTestHost } from '../test/support/test-host.js';
import { idleSession, nextMessage } from './bench-support.js';

const VIEWERS = 200;
/** Milliseconds between two events: 50 a second. */
const PACE_MS = 20;
const ROUNDS = 1000;
/** Rounds of each run and thrown away first, so neither side pays for a cold JIT. */
const WARMUP = 100;
const BLOCK = 50;

const t = await startTestHost({ remote: { bind: '127.0.0.1', port: 0, roots: [] } });
const shared = await idleSession(t, 'shared with 200 viewers');
const alone = await idleSession(t, 'followed by its owner only');

const owner = connectDevice(t, await pairDevice(t, { label: 'owner' }));
owner.client.watch(shared, t.host.parts.log.lastSeq(shared));
owner.client.watch(alone, t.host.parts.log.lastSeq(alone));
await until(() => owner.client.state.name === 'open');

const made = await t.host.parts.controlHandlers['share.create']({ sessionId: shared }, undefined as never);
if (!made.ok) throw new Error(made.error.message);
const viewers = fork(fileURLToPath(new URL('./share-viewers.ts', import.meta.url)), [made.value.url, String(VIEWERS)], {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
setPriority(viewers.pid!, 19);
const next = <T>(type: string) => nextMessage<T>(viewers, type);
const ready = await next<{ open: number }>('ready');
console.log(
  `${ready.open} viewers open on one link (the host counts ${t.host.parts.gateway.hub.viewerCount(made.value.link.id)})`,
);

const probe = async (sessionId: string, i: number): Promise<number> => {
  const seq = t.host.parts.log.lastSeq(sessionId) + 1;
  const got = new Promise<void>((resolve) => {
    const stop = owner.client.onEvent((e) => {
      if ((e as SessionEvent).sessionId === sessionId && (e as SessionEvent).seq === seq) {
        stop();
        resolve();
      }
    });
  });
  const start = performance.now();
  t.host.parts.log.append(sessionId, { type: 'notice', level: 'info', text: `event ${i}` });
  await got;
  const ms = performance.now() - start;
  await new Promise((resolve) => setTimeout(resolve, PACE_MS));
  return ms;
};

const watched: number[] = [];
const unwatched: number[] = [];
for (let i = 0; i < WARMUP + ROUNDS; i += BLOCK) {
  for (const [sessionId, times] of [
    [shared, watched],
    [alone, unwatched],
  ] as const) {
    for (let j = i; j < i + BLOCK; j++) {
      const ms = await probe(sessionId, j);
      if (j >= WARMUP) times.push(ms);
    }
  }
}

// Every viewer got every event of the shared session, once.
const last = t.host.parts.log.lastSeq(shared);
viewers.send({ t: 'report' });
let report = await next<{ open: number; lastSeqs: number[]; delays: number[] }>('report');
for (let i = 0; i < 50 && report.lastSeqs.some((s) => s !== last); i++) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  viewers.send({ t: 'report' });
  report = await next('report');
}
viewers.send({ t: 'stop' });
owner.client.stop();

const fmt = (v: number) => `${(v * 1000).toFixed(0)} µs`;
const line = (name: string, times: number[]) =>
  console.log(`  ${name.padEnd(52)} p50 ${fmt(percentile(times, 50))}, p99 ${fmt(percentile(times, 99))}`);
const ratio = percentile(watched, 50) / percentile(unwatched, 50);
console.log(
  `owner's latency, event appended → decrypted at its device over loopback (${ROUNDS} events a side, ${1000 / PACE_MS} a second, in turns):`,
);
line(`a session ${VIEWERS} viewers follow through one link`, watched);
line('a session only the owner follows', unwatched);
console.log(
  `  with viewers ÷ without: p50 ${ratio.toFixed(2)}×, p99 ${(percentile(watched, 99) / percentile(unwatched, 99)).toFixed(2)}×`,
);
console.log(
  `viewers: ${report.open} open at the end, ${report.lastSeqs.filter((s) => s === last).length} holding every event; ` +
    `append → viewer p50 ${percentile(report.delays, 50)} ms, p99 ${percentile(report.delays, 99)} ms (${report.delays.length} deliveries)`,
);
console.log(
  benchRowLine({
    id: 'share.owner-p50-with-viewers',
    label: `owner's event → device p50 with ${VIEWERS} viewers on one link vs none`,
    ratio,
    better: 'lower',
    target: 1.2,
    detail: {
      withViewersP50Us: percentile(watched, 50) * 1000,
      withoutP50Us: percentile(unwatched, 50) * 1000,
      viewersHoldingAll: report.lastSeqs.filter((s) => s === last).length,
    },
  }),
);
await t.close();
