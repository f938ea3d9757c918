// npm run bench -- many-phones
// One relay node, many phones: the node alone in its own process with every production limit
// (DEFAULT_LIMITS: nothing lifted), SCALE_PHONES idle devices (default 50,000) on SCALE_HOSTS hosts
// (default 1,000), every connection from a loopback address of its own range (50 to an address, as
// phones behind a carrier NAT: within the per-address bounds, which therefore need no lifting),
// opened from client processes of up to 5,000 connections each (scale-clients.ts). Figures:
//   - RSS per connection: the node's RSS (after a full collection) with them all open, less its RSS
//     before, over the connections (target ≤ 10 KB);
//   - frames per second through the node while each host's first device sends RATE 256-byte frames
//     a second, echoed by its host (offered: hosts × RATE × 2);
//   - a sealed call's round trip (1 KiB sealed by the device, opened and a reply sealed by the host,
//     opened by the device), p50 and p99, on the node before any client and again while it holds
//     them all and the hosts exchange frames.
// A node process holds at most as many connections as it may open descriptors (`ulimit -n`; 20,000
// on the machine these figures come from, a hard limit) and a node takes 20,000 connections by
// default (MAX_CONNECTIONS): a run asking for more measures as many as fit and says so.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { FrameOpener, FrameSealer, KEY_BYTES, generateHostIdentity, secureRandom } from '@tether/shared-protocol';
import { benchRowLine, percentile } from '@tether/shared-protocol/testing';
import { DEFAULT_LIMITS } from '../src/limits.js';
import { BenchDevice, BenchHost } from './bench-clients.js';
import { ask, firstLine, spawnTs } from './idle-memory.js';
import type { NodeMemory } from './relay-node.js';

const PHONES = Number(process.env['SCALE_PHONES'] ?? 50_000);
const HOSTS = Number(process.env['SCALE_HOSTS'] ?? 1_000);
/** Frames a second each active host's device sends (each echoed: twice as many through the node). */
const RATE = 5;
const PER_PROCESS = 5_000;
const ROUNDS = 1000;
/** Seconds the frame rate is measured over, at least. */
const MEASURE_S = 10;
/** Descriptors a node keeps for itself (listener, epoll, pipes, this bench's own pair). */
const HEADROOM = 500;
const TARGET_RSS_BYTES = 10_000;

/** CPU seconds (user + system) a process has used, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const fdLimit = Number(/Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? Infinity);
const room = Math.min(fdLimit, DEFAULT_LIMITS.maxConnections) - HEADROOM - HOSTS;
const perHost = Math.floor(Math.min(PHONES, room) / HOSTS);
const phones = perHost * HOSTS;
if (phones < PHONES) {
  console.log(
    `asked for ${PHONES.toLocaleString('en-US')} idle phones: one node process may open ${fdLimit.toLocaleString('en-US')} descriptors here ` +
      `and a node takes ${DEFAULT_LIMITS.maxConnections.toLocaleString('en-US')} connections, so ${phones.toLocaleString('en-US')} phones ` +
      `(${perHost} on each of ${HOSTS.toLocaleString('en-US')} hosts) are measured`,
  );
}

/** A host that opens what its device sealed and seals a reply, and that device: one sealed call at a time. */
async function sealedPair(url: string) {
  const [up, down] = [secureRandom(KEY_BYTES), secureRandom(KEY_BYTES)];
  const [deviceSeal, hostOpen, hostSeal, deviceOpen] = [
    new FrameSealer(up),
    new FrameOpener(up),
    new FrameSealer(down),
    new FrameOpener(down),
  ];
  const must = <T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };
  const identity = generateHostIdentity();
  const host = await BenchHost.connect(url, identity, {
    echo: (payload) => must(hostSeal.seal(must(hostOpen.open(payload)))),
  });
  const device = await BenchDevice.connect(url, identity);
  await host.opened(1);
  const call = new Uint8Array(1024).fill(1);
  const rounds = async (count: number) => {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      const back = new Promise<void>((resolve) =>
        device.ws.once('message', (data: Buffer) => {
          must(deviceOpen.open(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
          resolve();
        }),
      );
      device.ws.send(must(deviceSeal.seal(call)));
      await back;
      times.push(performance.now() - start);
    }
    return times;
  };
  await rounds(100);
  /** ROUNDS calls, with this process's own event-loop delay meanwhile: what the machine does to any process. */
  return async () => {
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const times = await rounds(ROUNDS);
    loop.disable();
    return { times, loopP99: loop.percentile(99) / 1e6, loopMax: loop.max / 1e6 };
  };
}

const node = spawnTs('./relay-node.ts', [], true, { RELAY_BENCH_LIMITS: 'default' });
const clients: ChildProcess[] = [];
try {
  const { url } = JSON.parse(await firstLine(node)) as { url: string };
  const calls = await sealedPair(url);
  const idle = await calls();
  const before = await ask<NodeMemory>(node, 'memory');

  const processes = Math.ceil((phones + HOSTS) / PER_PROCESS);
  const started = performance.now();
  for (let p = 0; p < processes; p++) {
    const hosts = Math.floor(HOSTS / processes) + (p < HOSTS % processes ? 1 : 0);
    clients.push(spawnTs('./scale-clients.ts', [url, String(hosts), String(perHost), String(p), String(RATE)], true));
  }
  for (const line of await Promise.all(clients.map(firstLine))) {
    if (!line.startsWith('ready')) throw new Error(line);
  }
  const connectS = (performance.now() - started) / 1000;
  const open = await ask<NodeMemory>(node, 'memory');
  const connections = open.open - before.open;
  const rssPer = (open.rss - before.rss) / connections;

  const count = async () => {
    const answers = await Promise.all(
      clients.map((c) => ask<{ frames: number; closed: Record<string, number> }>(c, 'count')),
    );
    const closed: Record<string, number> = {};
    for (const [code, n] of answers.flatMap((a) => Object.entries(a.closed))) closed[code] = (closed[code] ?? 0) + n;
    return { frames: answers.reduce((sum, a) => sum + a.frames, 0), closed };
  };
  for (const c of clients) c.send('go');
  await new Promise((r) => setTimeout(r, 2000));
  const from = await count();
  const cpu0 = cpuSeconds(node.pid!);
  const t0 = performance.now();
  const busy = await calls();
  const left = MEASURE_S * 1000 - (performance.now() - t0);
  if (left > 0) await new Promise((r) => setTimeout(r, left));
  const to = await count();
  const seconds = (performance.now() - t0) / 1000;
  const fps = (to.frames - from.frames) / seconds;
  const nodeCpu = (cpuSeconds(node.pid!) - cpu0) / seconds;
  const during = await ask<NodeMemory>(node, 'memory');

  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  console.log(
    `one node, production limits: ${connections.toLocaleString('en-US')} connections (${phones.toLocaleString('en-US')} idle phones, ` +
      `${HOSTS.toLocaleString('en-US')} hosts) from ${processes} client processes, opened in ${connectS.toFixed(0)} s`,
  );
  console.log(
    `  RSS per connection ${(rssPer / 1000).toFixed(1)} KB (target ≤ ${TARGET_RSS_BYTES / 1000} KB: ${rssPer <= TARGET_RSS_BYTES ? 'met' : 'not met'}); ` +
      `node RSS ${mib(before.rss)} before, ${mib(open.rss)} with them open, ${mib(during.rss)} with frames flowing`,
  );
  console.log(
    `  frames through the node: ${Math.round(fps).toLocaleString('en-US')}/s (offered ${(HOSTS * RATE * 2).toLocaleString('en-US')}/s: ` +
      `${HOSTS} hosts × ${RATE} frames/s each way, 256 bytes); connections closed (by close code) ${JSON.stringify(to.closed)}; ` +
      `the node's CPU ${(nodeCpu * 100).toFixed(0)}% of a core, ${((nodeCpu / fps) * 1e6).toFixed(0)} µs a frame`,
  );
  console.log(`  sealed call round trip (1 KiB, ${ROUNDS} calls each; the bench's own event-loop delay beside):`);
  for (const [name, { times, loopP99, loopMax }] of [
    ['empty node', idle],
    ['holding them', busy],
  ] as const) {
    console.log(
      `    ${name.padEnd(13)} p50 ${ms(percentile(times, 50))}, p90 ${ms(percentile(times, 90))}, p99 ${ms(percentile(times, 99))}, ` +
        `max ${ms(Math.max(...times))}   (loop delay p99 ${ms(loopP99)}, max ${ms(loopMax)})`,
    );
  }
  console.log(
    benchRowLine({
      id: 'many-phones.rss-per-connection',
      label: `relay RSS per connection with ${connections} open, against 10 KB`,
      ratio: rssPer / TARGET_RSS_BYTES,
      better: 'lower',
      target: 1,
      detail: {
        connections,
        rssPer,
        fps,
        idleP99Ms: percentile(idle.times, 99),
        busyP99Ms: percentile(busy.times, 99),
      },
    }),
  );
} finally {
  for (const c of clients) c.kill('SIGKILL');
  node.kill('SIGKILL');
}
