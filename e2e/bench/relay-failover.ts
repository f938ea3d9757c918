// `npm run bench -- relay` (third part): how long a device is cut off when a relay node dies or is
// restarted. Needs the built host and relay (`npm run build`) and redis-server; without Redis it
// says so and measures nothing.
//
// Real relay processes sharing a real Redis, a real host, and one paired Node device that keeps a
// steady stream going: a sealed `host.info` call every STEP_MS, one at a time, each answered by
// the host through the relay (a call made while the device is cut off waits for the connection,
// or fails and is made again). The figures:
//
// - the host's node is killed (`kill -9`): the host, given both nodes as its relays
//   (`--relay A --relay B`), is linked to A and the device to B. Time from the kill until a call
//   made after it is answered.
// - the device's node is killed: the host on A, the device on B (which tries A next). The same.
// - a rolling restart: both nodes behind a TCP balancer (host and device go through it, as in
//   e2e/tests/relay-rolling-restart.spec.ts); each node in turn gets SIGTERM, drains and exits,
//   and a fresh node takes its place. The longest time between two answers.
//
// The nodes run in a mesh (one key for the run): stream data crosses between them over their
// links, Redis keeping presence and claims, as a cluster is deployed.
//
// Targets (issue 26): the phone is back within 2 s; a rolling restart never leaves it offline more
// than 1 s. Each is printed with its ratio to the target as a `bench-row` line. One measurement of
// each per run: a figure is an absolute time, not compared with a baseline.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Connect, WebSocketConstructor } from '@tether/shared-protocol';
import { DeviceClient, fromBase64UrlExact, relayConnect } from '@tether/shared-protocol';
import { benchRowLine } from '@tether/shared-protocol/testing';
import { WebSocket } from 'ws';
import type { HostProcess } from '../support/host-process.js';
import { eventually, makeDataDir, removeDataDir, startHost } from '../support/host-process.js';
import type { RelayPaired } from '../support/relay-device.js';
import { pairThroughRelay } from '../support/relay-device.js';
import type { RedisProcess, RelayProcess } from '../support/relay-process.js';
import { newMeshKey, startRedis, startRelay } from '../support/relay-process.js';
import { startTcpBalancer } from '../support/tcp-balancer.js';

/** Milliseconds between one answer and the next call: the stream's pace. */
const STEP_MS = 20;
/** A call the device holds longer than this counts as lost and is made again: 1 s, so a call sent
 * into a dead stream does not hide when the device is back. */
const CALL_TIMEOUT_MS = 1_000;
/** Milliseconds of steady stream before and after each kill or restart. */
const SETTLE_MS = 1_000;
const BACK_TARGET_MS = 2_000;
const GAP_TARGET_MS = 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The mesh key every node of the run shares. */
const meshKey = newMeshKey();

interface Rig {
  host: HostProcess;
  paired: RelayPaired;
  stop(): Promise<void>;
}

/** A host given `relays` in that order, linked to the first, and a device paired through it. */
async function hostWithDevice(relays: string[]): Promise<Rig> {
  const dataDir = makeDataDir();
  mkdirSync(join(dataDir, 'project'));
  const host = await startHost(dataDir, [...relays.flatMap((url) => ['--relay', url]), '--relay-only']);
  try {
    const linked = await host.waitFor((l) => l.event === 'relay' && l.state === 'linked');
    const paired = await pairThroughRelay(String(linked.pairUrl), host, 'bench', relays[0]);
    return {
      host,
      paired,
      stop: async () => {
        await host.stop();
        removeDataDir(dataDir);
      },
    };
  } catch (error) {
    await host.stop();
    removeDataDir(dataDir);
    throw error;
  }
}

/** Connects through each relay in turn, moving to the next when one cannot be reached or drops the
 * device before it is answered (as the app does with the relays a host keeps). */
function rotatingConnect(paired: RelayPaired, urls: string[]): Connect {
  let next = 0;
  const through = urls.map((relayUrl) =>
    relayConnect({
      relayUrl,
      hostId: paired.reply.hostId,
      hostSignPublicKey: fromBase64UrlExact(paired.reply.hostSignPublicKey, 32)!,
      ticket: () => paired.reply.relay!.ticket,
      WebSocketImpl: WebSocket as unknown as WebSocketConstructor,
    }),
  );
  return async () => {
    const i = next;
    next = (next + 1) % urls.length;
    const transport = await through[i]!();
    // A connection that opens stays the first choice until it fails.
    next = i;
    return transport;
  };
}

/** The device's steady stream of calls; records when each answered call was sent and answered. */
class Stream {
  readonly answers: { sent: number; at: number }[] = [];
  private running = true;
  private readonly done: Promise<void>;
  readonly client: DeviceClient;

  constructor(paired: RelayPaired, connect: Connect) {
    this.client = new DeviceClient({
      deviceId: paired.reply.deviceId,
      deviceKeys: paired.keys,
      hostBoxPublicKey: fromBase64UrlExact(paired.reply.hostBoxPublicKey, 32)!,
      connect,
      backoff: { baseMs: 50, maxMs: 250 },
    });
    this.client.start();
    this.done = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const sent = performance.now();
      const answer = await this.client.call('host.info', {}, { timeoutMs: CALL_TIMEOUT_MS });
      if (answer.ok) this.answers.push({ sent, at: performance.now() });
      await sleep(STEP_MS);
    }
  }

  /** Milliseconds from `at` until a call made at or after it was answered: when the device is back. */
  async backAfter(at: number, timeoutMs = 30_000): Promise<number> {
    const back = await eventually(() => this.answers.find((a) => a.sent >= at), timeoutMs, 'an answer');
    return back.at - at;
  }

  /** The longest time between two answers after `from`. */
  longestGapAfter(from: number): number {
    const times = this.answers.filter((a) => a.at >= from).map((a) => a.at);
    let gap = 0;
    for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i]! - times[i - 1]!);
    return gap;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
    this.client.stop();
  }
}

async function nodeKilled(redis: RedisProcess, which: 'host' | 'device'): Promise<number> {
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const a: RelayProcess = await startRelay(['--redis', redis.url], { meshKey });
    stops.push(() => a.stop('SIGKILL'));
    const b: RelayProcess = await startRelay(['--redis', redis.url], { meshKey });
    stops.push(() => b.stop('SIGKILL'));
    const rig = await hostWithDevice([a.url, b.url]);
    stops.push(() => rig.stop());
    // The host on A; the device on B, then A.
    const stream = new Stream(rig.paired, rotatingConnect(rig.paired, [b.url, a.url]));
    stops.push(() => stream.stop());
    await eventually(() => (stream.answers.length > 0 ? true : undefined), 15_000, 'the first answer');
    await sleep(SETTLE_MS);
    const killedAt = performance.now();
    await (which === 'host' ? a : b).stop('SIGKILL');
    return await stream.backAfter(killedAt);
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

async function rollingRestart(redis: RedisProcess): Promise<{ gapMs: number; drainMs: number[] }> {
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const balancer = await startTcpBalancer();
    stops.push(() => balancer.stop());
    const node = async () => {
      const r = await startRelay(['--redis', redis.url, '--public-url', balancer.url], { meshKey });
      stops.push(() => r.stop('SIGKILL'));
      return r;
    };
    const first = [await node(), await node()];
    balancer.backends = first.map((r) => r.port);
    const rig = await hostWithDevice([balancer.url]);
    stops.push(() => rig.stop());
    const stream = new Stream(rig.paired, rotatingConnect(rig.paired, [balancer.url]));
    stops.push(() => stream.stop());
    await eventually(() => (stream.answers.length > 0 ? true : undefined), 15_000, 'the first answer');
    await sleep(SETTLE_MS);
    const from = performance.now();
    const drainMs: number[] = [];
    let live = first;
    for (const old of first) {
      const stoppedAt = performance.now();
      await old.stop('SIGTERM');
      drainMs.push(Math.round(performance.now() - stoppedAt));
      live = [...live.filter((r) => r !== old), await node()];
      balancer.backends = live.map((r) => r.port);
      await sleep(SETTLE_MS);
    }
    return { gapMs: stream.longestGapAfter(from), drainMs };
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

if (!existsSync('/usr/bin/redis-server')) {
  console.log('relay failover: no redis-server here, nothing measured');
} else {
  const redis = await startRedis();
  try {
    const hostNode = await nodeKilled(redis, 'host');
    const deviceNode = await nodeKilled(redis, 'device');
    const rolling = await rollingRestart(redis);
    const ms = (v: number) => `${Math.round(v)} ms`;
    console.log(`relay failover: two nodes and Redis, a sealed call from the device every ${STEP_MS} ms`);
    console.log(
      `  host's node killed (-9), host has two relays: device answered again after ${ms(hostNode)} (target ≤ 2 s)`,
    );
    console.log(
      `  device's node killed (-9):                    device answered again after ${ms(deviceNode)} (target ≤ 2 s)`,
    );
    console.log(
      `  rolling restart (SIGTERM each node in turn):  longest gap ${ms(rolling.gapMs)} (target ≤ 1 s); drains ${rolling.drainMs.map(ms).join(', ')}`,
    );
    const row = (id: string, label: string, value: number, target: number) =>
      console.log(
        benchRowLine({
          id,
          label,
          ratio: value / target,
          better: 'lower',
          target: 1,
          detail: { ms: Math.round(value) },
        }),
      );
    row(
      'relay.failover-host-node',
      "host's relay node killed: device answered again, against 2 s",
      hostNode,
      BACK_TARGET_MS,
    );
    row(
      'relay.failover-device-node',
      "device's relay node killed: device answered again, against 2 s",
      deviceNode,
      BACK_TARGET_MS,
    );
    row(
      'relay.rolling-restart-gap',
      'rolling restart of two nodes: longest gap between answers, against 1 s',
      rolling.gapMs,
      GAP_TARGET_MS,
    );
  } finally {
    await redis.stop();
  }
}
