// `npm run bench -- relay` (second part): what the relay path adds to a sealed call, end to end.
// Needs the built host and relay (`npm run build`); the two-node figures need redis-server.
//
// One real host (`tether start --relay URL`, also listening on 127.0.0.1) and one paired Node
// device with two DeviceClients: one direct to the host's /rc/ws, one through the relay. Each makes
// ROUNDS sealed `host.info` calls one at a time (request sealed, carried, opened, dispatched,
// answered, sealed back and opened), and the figures are their round trips (p50, p99), then the
// relay's figure over the direct one measured in the same run. With Redis, the same through two
// relay nodes, the host linked to node A: the device on node B, which reaches A through Redis
// pub/sub (it has no mesh key), and on node C, which reaches A over their mesh link (Redis keeping
// presence and claims only). The calls run in turns (direct, one node, B, C, direct…), TURNS of
// them, so load from elsewhere falls on every path alike. Prints figures; asserts nothing.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Connect, WebSocketConstructor } from '@tether/shared-protocol';
import { DeviceClient, fromBase64UrlExact, relayConnect, webSocketConnect } from '@tether/shared-protocol';
import { benchRowLine } from '@tether/shared-protocol/testing';
import { WebSocket } from 'ws';
import { makeDataDir, removeDataDir, startHost } from '../support/host-process.js';
import { pairThroughRelay } from '../support/relay-device.js';
import type { RedisProcess, RelayProcess } from '../support/relay-process.js';
import { newMeshKey, startRedis, startRelay } from '../support/relay-process.js';

const ROUNDS = 1000;
/** Turns the ROUNDS are split into, each path taking its share in turn. */
const TURNS = 5;
/** Calls made and thrown away first, so no figure pays for a cold JIT or a fresh socket. */
const WARMUP = 100;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const stops: (() => Promise<unknown>)[] = [];
const redis: RedisProcess | undefined = existsSync('/usr/bin/redis-server') ? await startRedis() : undefined;
if (redis) stops.push(() => redis.stop());
const meshKey = newMeshKey();
const nodeA: RelayProcess = await startRelay(redis ? ['--redis', redis.url] : [], { meshKey });
stops.push(() => nodeA.stop());
const nodeB: RelayProcess | undefined = redis ? await startRelay(['--redis', redis.url]) : undefined;
if (nodeB) stops.push(() => nodeB.stop());
const nodeC: RelayProcess | undefined = redis ? await startRelay(['--redis', redis.url], { meshKey }) : undefined;
if (nodeC) stops.push(() => nodeC.stop());

const dataDir = makeDataDir();
mkdirSync(join(dataDir, 'project'));
const host = await startHost(dataDir, ['--relay', nodeA.url, '--root', dataDir]);
stops.push(async () => {
  await host.stop();
  removeDataDir(dataDir);
});

try {
  const listening = await host.waitFor((l) => l.event === 'listening');
  const linked = await host.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  const paired = await pairThroughRelay(String(linked.pairUrl), host, 'bench');
  const { reply, keys } = paired;
  const client = (connect: Connect) =>
    new DeviceClient({
      deviceId: reply.deviceId,
      deviceKeys: keys,
      hostBoxPublicKey: fromBase64UrlExact(reply.hostBoxPublicKey, 32)!,
      connect,
    });
  const viaRelay = (url: string) =>
    relayConnect({
      relayUrl: url,
      hostId: reply.hostId,
      hostSignPublicKey: fromBase64UrlExact(reply.hostSignPublicKey, 32)!,
      ticket: () => reply.relay!.ticket,
      WebSocketImpl: WebSocket as unknown as WebSocketConstructor,
    });

  /** A started client that has made WARMUP calls, and a way to time `n` more, one at a time. */
  async function warmed(connect: Connect) {
    const c = client(connect);
    c.start();
    const timed = async (n: number, into: number[]) => {
      for (let i = 0; i < n; i++) {
        const start = performance.now();
        const answer = await c.call('host.info', {});
        if (!answer.ok) throw new Error(answer.error.message);
        into.push(performance.now() - start);
      }
    };
    await timed(WARMUP, []);
    return { c, timed };
  }

  const paths = [
    webSocketConnect(
      `${String(listening.url).replace('http', 'ws')}/rc/ws`,
      WebSocket as unknown as WebSocketConstructor,
    ),
    viaRelay(nodeA.url),
    ...(nodeB && nodeC ? [viaRelay(nodeB.url), viaRelay(nodeC.url)] : []),
  ];
  const clients = [];
  for (const connect of paths) clients.push(await warmed(connect));
  const times: number[][] = paths.map(() => []);
  for (let turn = 0; turn < TURNS; turn++) {
    for (const [i, { timed }] of clients.entries()) await timed(ROUNDS / TURNS, times[i]!);
  }
  for (const { c } of clients) c.stop();
  const [direct, relayed, throughRedis, throughMesh] = times as [number[], number[], number[]?, number[]?];

  const fmt = (v: number) => `${(v * 1000).toFixed(0)} µs`;
  const line = (name: string, times: number[]) =>
    console.log(`  ${name.padEnd(44)} p50 ${fmt(percentile(times, 50))}, p99 ${fmt(percentile(times, 99))}`);
  const ratio = (times: number[]) =>
    `p50 ${(percentile(times, 50) / percentile(direct, 50)).toFixed(2)}×, p99 ${(percentile(times, 99) / percentile(direct, 99)).toFixed(2)}×`;
  const added = (times: number[]) => fmt(percentile(times, 50) - percentile(direct, 50));
  console.log(
    `sealed call round trip, device ↔ host over loopback (${ROUNDS} host.info calls a path, one at a time, in ${TURNS} turns, after ${WARMUP} unmeasured)`,
  );
  line('direct (the host’s /rc/ws)', direct);
  line('through one relay node', relayed);
  console.log(`  relay ÷ direct: ${ratio(relayed)}   (adds ${added(relayed)} at p50)`);
  if (throughRedis && throughMesh) {
    line('through two relay nodes, through Redis', throughRedis);
    console.log(`  two nodes through Redis ÷ direct: ${ratio(throughRedis)}   (adds ${added(throughRedis)} at p50)`);
    line('through two relay nodes, over the mesh', throughMesh);
    console.log(`  two nodes over the mesh ÷ direct: ${ratio(throughMesh)}   (adds ${added(throughMesh)} at p50)`);
    for (const [id, label, times, target] of [
      ['relay.two-nodes-redis', 'sealed call through two relay nodes and Redis vs direct, p50', throughRedis, 2],
      ['relay.two-nodes-mesh', 'sealed call through two relay nodes over the mesh vs direct, p50', throughMesh, 1.5],
    ] as const) {
      const p50 = percentile(times, 50);
      console.log(
        benchRowLine({
          id,
          label,
          ratio: Number((p50 / percentile(direct, 50)).toFixed(2)),
          better: 'lower',
          target,
          detail: { p50Us: Math.round(p50 * 1000), directP50Us: Math.round(percentile(direct, 50) * 1000) },
        }),
      );
    }
  } else console.log('  (no redis-server here: the two-node figure is skipped)');
} finally {
  for (const stop of stops.reverse()) await stop();
}
