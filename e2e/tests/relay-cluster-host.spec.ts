import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent, TetherEvent } from '@tether/shared-protocol';
import { expect, test } from '@playwright/test';
import { eventually, makeDataDir, removeDataDir, startHost, tetherJson } from '../support/host-process.js';
import type { RedisProcess, RelayProcess } from '../support/relay-process.js';
import { newMeshKey, startRedis, startRelay } from '../support/relay-process.js';
import { pairThroughRelay, relayClient } from '../support/relay-device.js';
import type { TcpBalancer } from '../support/tcp-balancer.js';
import { startTcpBalancer } from '../support/tcp-balancer.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
test.afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

test('two relay nodes and Redis behind a balancer: the host on one, its device on the other; kill -9 the host’s node, and the session resumes with nothing lost or doubled', async () => {
  const redis: RedisProcess = await startRedis();
  cleanups.push(() => redis.stop());
  const balancer: TcpBalancer = await startTcpBalancer();
  cleanups.push(() => balancer.stop());
  // The nodes forward to each other over their mesh links, Redis keeping presence and claims.
  const meshKey = newMeshKey();
  const node = async () => {
    const r = await startRelay(['--redis', redis.url, '--public-url', balancer.url], { meshKey });
    cleanups.push(() => r.stop('SIGKILL'));
    return r;
  };
  const a: RelayProcess = await node();
  const b: RelayProcess = await node();
  // The balancer hands each new connection to the first node that takes it: A while it lives.
  balancer.backends = [a.port, b.port];

  const dataDir = makeDataDir();
  const project = join(dataDir, 'project');
  mkdirSync(project);
  const host = await startHost(dataDir, ['--relay', balancer.url, '--relay-only', '--root', dataDir], {
    TETHER_DEMO_DELAY_MS: '80',
  });
  cleanups.push(async () => {
    await host.stop();
    removeDataDir(dataDir);
  });
  const linked = await host.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  /** A node's host links and device connections, from its metrics (its /healthz says only "ok"). */
  const carried = async (r: RelayProcess) => {
    const lines = (await (await fetch(`http://127.0.0.1:${r.port}/metrics`)).text()).split('\n');
    const gauge = (kind: string) => {
      const line = lines.find((l) => l.startsWith(`tether_relay_connections{kind="${kind}"} `));
      return line === undefined ? NaN : Number(line.split(' ')[1]);
    };
    const direct = lines.find((l) =>
      l.startsWith('tether_relay_cluster_messages_total{direction="in",path="direct"} '),
    );
    return { hosts: gauge('host'), devices: gauge('device'), overMesh: Number(direct?.split(' ')[1] ?? NaN) };
  };
  expect((await carried(a)).hosts).toBe(1);

  // Paired through the balancer (node A); the device then talks to node B only.
  const paired = await pairThroughRelay(String(linked.pairUrl), host);
  const client = relayClient(`http://127.0.0.1:${b.port}`, paired);
  const events: TetherEvent[] = [];
  client.onEvent((e) => events.push(e));
  cleanups.push(() => client.stop());
  client.start();
  const created = await client.call('sessions.create', { cwd: project, text: 'across two relay nodes' });
  if (!created.ok) throw new Error(created.error.message);
  const id = created.value.session.id;
  client.watch(id, 0);
  events.length = 0;
  const ofSession = () => events.filter((e): e is SessionEvent => 'seq' in e && e.sessionId === id);
  await eventually(() => (ofSession().some((e) => e.type === 'message.delta') ? true : undefined));
  expect((await carried(b)).devices).toBe(1);
  expect((await carried(b)).hosts).toBe(0);
  // The host's replies reach B over the mesh link from A, not through Redis.
  expect((await carried(b)).overMesh).toBeGreaterThan(0);

  // The host's node dies without a word. The host relinks through the balancer, to B.
  await a.stop('SIGKILL');
  await host.waitFor((l) => l.event === 'relay' && l.state === 'linked' && l !== linked, 30_000);
  await eventually(async () => ((await carried(b)).hosts === 1 ? true : undefined), 30_000, 'the host on node B');

  // The device, cut off from the host's old node, reconnects to B and resumes from its last sequence.
  const approval = await eventually(
    () => {
      const found = ofSession().find((e) => e.type === 'approval.requested');
      return found?.type === 'approval.requested' ? found.approval : undefined;
    },
    40_000,
    'the approval',
  );
  const answered = await eventually(
    async () => {
      const r = await client.call('approvals.answer', { id: approval.id, decision: 'allow-once' });
      return r.ok || r.error.code === 'already-resolved' ? r : undefined;
    },
    30_000,
    'the answer',
  );
  expect(answered.ok).toBe(true);
  await eventually(() => (ofSession().some((e) => e.type === 'run.finished') ? true : undefined), 30_000);
  const log = await tetherJson<SessionEvent[]>(dataDir, ['sessions', 'show', id]);
  const delivered = ofSession();
  expect(delivered.map((e) => e.seq)).toEqual(Array.from({ length: delivered.length }, (_, i) => i + 1));
  expect(delivered).toEqual(log.slice(0, delivered.length));
  expect(delivered.length).toBeGreaterThan(log.findIndex((e) => e.type === 'run.finished'));
});
