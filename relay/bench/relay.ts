// npm run bench -- relay
// The relay's cost, each figure against a baseline measured in the same run:
//   - added latency: a 1 KiB round trip device → host → device through the relay, against the same
//     round trip over one direct ws connection (p50, p99);
//   - throughput: 256-byte frames a second from a device to its host through one relay node, against
//     a bare ws forwarder that pipes one socket into another with no framing or accounting (ratio;
//     three rounds a side in turns, each side's best);
//   - memory per idle connection: 10,000 hosts and devices connected to a node alone in its own
//     process, from four client processes (idle-memory.ts); RSS with them open, once they have all
//     closed, and for a second round on the same node;
//   - latency and throughput again through two nodes (when redis-server is installed): the host on
//     one node, the device on another, once with the two reaching each other through Redis pub/sub
//     and once over their mesh link (Redis keeping presence only), the latency in turns.
// Everything runs on 127.0.0.1, in one process except the memory figure; on a loaded machine the
// p99 figures mostly measure the machine. The per-connection byte rates and the per-address connection rate
// are lifted for the bench (defaults: 2 MiB/s a device, 60 connections a burst per address), so
// that the figures measure the relay's work rather than its limits.
import { generateHostIdentity } from '@tether/shared-protocol';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { WebSocket } from 'ws';
import { WebSocketServer } from 'ws';
import type { RelayServerOptions } from '../src/relay-server.js';
import { RelayServer } from '../src/relay-server.js';
import { freePort, spawnRedis, stopRedis } from '../src/testing/redis-server.js';
import { BenchDevice, BenchHost, openWs } from './bench-clients.js';
import { BENCH_LIMITS } from './bench-limits.js';
import { idleMemory } from './idle-memory.js';

const ROUNDS = 2000;
const FRAMES = 100_000;
const FRAME_BYTES = 256;
/** Idle connections on one node for the memory figure: hosts and their devices, 60 each. */
const IDLE_CONNECTIONS = 10_000;
/** Frames a sender may have in flight: 2,000 (512 KB). */
const WINDOW = 2000;
/**
 * Throughput rounds per side, in turns (bare, relay, bare, relay…). Each side's figure is its best
 * round: load from elsewhere on a shared machine only ever slows a round down (as in
 * shared-protocol/bench/protocol.ts); one round a side moved the ratio between 0.6 and 1.5 here.
 */
const THROUGHPUT_ROUNDS = 3;
/** Latency turns through two nodes, each way in turn (Redis, mesh, Redis, mesh…), ROUNDS each. */
const LATENCY_TURNS = 2;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const us = (ms: number) => `${Math.round(ms * 1000)} µs`;
const signed = (ms: number) => `${ms >= 0 ? '+' : '−'}${us(Math.abs(ms))}`;

async function listen(handler?: Parameters<typeof createServer>[1]) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** Round trips of `send` → the reply; returns each in milliseconds. */
async function roundTrips(send: (bytes: Uint8Array) => void, next: () => Promise<unknown>): Promise<number[]> {
  const payload = new Uint8Array(1024).fill(1);
  for (let i = 0; i < 200; i++) {
    send(payload);
    await next();
  }
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    send(payload);
    await next();
    times.push(performance.now() - start);
  }
  return times;
}

async function directLatency(): Promise<number[]> {
  const { server, port } = await listen();
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => ws.on('message', (data) => ws.send(data as Buffer)));
  const client = await openWs(`ws://127.0.0.1:${port}`);
  const times = await roundTrips(
    (b) => client.send(b),
    () => new Promise((resolve) => client.once('message', resolve)),
  );
  client.close();
  wss.close();
  server.close();
  return times;
}

async function relayLatency(hostRelay: RelayServer, deviceRelay: RelayServer): Promise<number[]> {
  const identity = generateHostIdentity();
  const host = await BenchHost.connect(hostRelay.url, identity, { echo: true });
  const device = await BenchDevice.connect(deviceRelay.url, identity);
  await host.opened(1);
  const times = await roundTrips(
    (b) => device.ws.send(b),
    () => new Promise((resolve) => device.ws.once('message', resolve)),
  );
  device.ws.close();
  host.ws.close();
  return times;
}

/**
 * Frames a second from one device to its host. The sender keeps at most WINDOW frames ahead of what
 * the host has received, as an end-to-end flow control would: a sender that outruns its receiver
 * is closed by the relay's bounds (which is the point of them), and that is not a rate.
 */
async function throughput(host: { received: number }, device: WebSocket): Promise<number> {
  const frame = new Uint8Array(FRAME_BYTES).fill(2);
  let closed: string | undefined;
  device.once('close', (code, reason) => (closed = `${code} ${reason.toString()}`));
  const base = host.received;
  const start = performance.now();
  for (let sent = 0; sent < FRAMES;) {
    if (closed) throw new Error(`the device was closed: ${closed}`);
    if (sent - (host.received - base) >= WINDOW) {
      await new Promise((r) => setImmediate(r));
      continue;
    }
    device.send(frame);
    sent++;
  }
  while (host.received - base < FRAMES) {
    if (closed) throw new Error(`the device was closed: ${closed}`);
    await new Promise((r) => setImmediate(r));
  }
  return FRAMES / ((performance.now() - start) / 1000);
}

/** A bare forwarder: the first /host socket gets every message from /device sockets, as they are. */
async function bareForwarder(): Promise<number> {
  const { server, port } = await listen();
  const wss = new WebSocketServer({ server, maxPayload: 2 * 1024 * 1024 });
  let hostSide: WebSocket | undefined;
  wss.on('connection', (ws, req) => {
    if (req.url === '/host') hostSide = ws;
    else ws.on('message', (data) => hostSide?.send(data as Buffer));
  });
  const host = await openWs(`ws://127.0.0.1:${port}/host`);
  const counter = { received: 0 };
  host.on('message', () => counter.received++);
  const device = await openWs(`ws://127.0.0.1:${port}/device`);
  const fps = await throughput(counter, device);
  device.close();
  host.close();
  wss.close();
  server.close();
  return fps;
}

async function relayThroughput(hostRelay: RelayServer, deviceRelay: RelayServer): Promise<number> {
  const identity = generateHostIdentity();
  const host = await BenchHost.connect(hostRelay.url, identity, { echo: false });
  const device = await BenchDevice.connect(deviceRelay.url, identity);
  await host.opened(1);
  const fps = await throughput(host, device.ws);
  device.ws.close();
  host.ws.close();
  return fps;
}

/** Redis for the two-node figures, from the tests' own starter (nothing kept on disk). */
async function startRedis(): Promise<{ url: string; process: ChildProcess } | undefined> {
  if (!existsSync('/usr/bin/redis-server')) return undefined;
  const port = await freePort();
  return { url: `redis://127.0.0.1:${port}`, process: await spawnRedis(port) };
}

async function start(options: Pick<RelayServerOptions, 'redisUrl' | 'mesh'> = {}): Promise<RelayServer> {
  const r = await RelayServer.start({ bind: '127.0.0.1', port: 0, limits: BENCH_LIMITS, ...options });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function latencyLine(name: string, times: number[], base?: number[]) {
  const p50 = percentile(times, 50);
  const p99 = percentile(times, 99);
  const added = base
    ? `   added p50 ${signed(p50 - percentile(base, 50))}, p99 ${signed(p99 - percentile(base, 99))}`
    : '';
  console.log(`  ${name.padEnd(26)} p50 ${us(p50).padStart(8)}   p99 ${us(p99).padStart(8)}${added}`);
}

const one = await start();
console.log(`latency, 1 KiB round trip device → host → device (${ROUNDS} rounds):`);
const direct = await directLatency();
latencyLine('direct ws', direct);
latencyLine('through one relay node', await relayLatency(one, one), direct);

console.log(
  `throughput, ${FRAMES} ${FRAME_BYTES}-byte frames device → host, ${THROUGHPUT_ROUNDS} rounds in turns (each side's best):`,
);
const bareRounds: number[] = [];
const relayRounds: number[] = [];
for (let i = 0; i < THROUGHPUT_ROUNDS; i++) {
  bareRounds.push(await bareForwarder());
  relayRounds.push(await relayThroughput(one, one));
}
const bare = Math.max(...bareRounds);
const through = Math.max(...relayRounds);
const rounds = (values: number[]) => values.map((v) => Math.round(v)).join(', ');
console.log(`  bare ws forwarder          ${Math.round(bare)} frames/s   (rounds ${rounds(bareRounds)})`);
console.log(
  `  one relay node             ${Math.round(through)} frames/s   ratio ${(through / bare).toFixed(2)}   (rounds ${rounds(relayRounds)}; ` +
    `round by round ${relayRounds.map((v, i) => (v / bareRounds[i]!).toFixed(2)).join(', ')})`,
);

await one.close();

const memory = await idleMemory(IDLE_CONNECTIONS);
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
console.log(
  `memory per idle connection (${memory.connections} idle hosts and devices on one node, in its own process):`,
);
console.log(
  `  rss ${(memory.rssPerConnection / 1000).toFixed(1)} KB (${(memory.rssPerConnection / 1024).toFixed(1)} KiB), V8 heap ${(memory.heapPerConnection / 1024).toFixed(1)} KiB a connection`,
);
console.log(
  `  node rss ${mib(memory.before.rss)} before, ${mib(memory.open.rss)} with them open, ${mib(memory.after.rss)} once they closed ` +
    `(V8 heap used ${mib(memory.before.heapUsed)}, ${mib(memory.open.heapUsed)}, ${mib(memory.after.heapUsed)})`,
);
console.log(
  `  as many again on the same node: rss ${mib(memory.again.rss)} open, ${mib(memory.afterAgain.rss)} closed (what it kept is taken again, not added to)`,
);

const redis = await startRedis();
if (!redis) {
  console.log('two nodes and Redis: skipped (no /usr/bin/redis-server)');
} else {
  try {
    // The host's node and one device node share a mesh key; the other device node has none, so
    // it and the host's node reach each other through Redis only.
    const mesh = { key: randomBytes(32), host: '127.0.0.1', port: 0 };
    const a = await start({ redisUrl: redis.url, mesh });
    const viaRedis = await start({ redisUrl: redis.url });
    const viaMesh = await start({ redisUrl: redis.url, mesh });
    console.log(
      `two nodes (host on one, device on the other), through Redis and through the mesh, ${LATENCY_TURNS} turns each:`,
    );
    const times = { redis: [] as number[], mesh: [] as number[] };
    for (let i = 0; i < LATENCY_TURNS; i++) {
      times.redis.push(...(await relayLatency(a, viaRedis)));
      times.mesh.push(...(await relayLatency(a, viaMesh)));
    }
    latencyLine('round trip, through Redis', times.redis, direct);
    latencyLine('round trip, through mesh', times.mesh, direct);
    const p50 = (t: number[]) => percentile(t, 50) / percentile(direct, 50);
    console.log(
      `  two nodes ÷ direct, p50: through Redis ${p50(times.redis).toFixed(2)}×, through the mesh ${p50(times.mesh).toFixed(2)}×`,
    );
    for (const [name, node] of [
      ['through Redis', viaRedis],
      ['through the mesh', viaMesh],
    ] as const) {
      const across = await relayThroughput(a, node);
      console.log(
        `  throughput, ${name.padEnd(16)} ${Math.round(across)} frames/s   ratio ${(across / bare).toFixed(2)} (to the bare forwarder)`,
      );
    }
    for (const n of [a, viaRedis, viaMesh]) await n.close();
  } finally {
    await stopRedis(redis.process);
  }
}
