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

test('a rolling restart of two relay nodes behind a balancer (SIGTERM, each drained in turn) loses and doubles nothing', async () => {
  test.setTimeout(120_000);
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
  const paired = await pairThroughRelay(String(linked.pairUrl), host);
  // The device goes through the balancer too: whichever node is up.
  const client = relayClient(balancer.url, paired);
  const events: TetherEvent[] = [];
  client.onEvent((e) => events.push(e));
  cleanups.push(() => client.stop());
  client.start();
  const created = await client.call('sessions.create', { cwd: project, text: 'through a rolling restart' });
  if (!created.ok) throw new Error(created.error.message);
  const id = created.value.session.id;
  client.watch(id, 0);
  // What arrived before the watch is replayed by it from sequence 1: count only from here.
  events.length = 0;
  const ofSession = () => events.filter((e): e is SessionEvent => 'seq' in e && e.sessionId === id);
  await eventually(() => (ofSession().some((e) => e.type === 'message.delta') ? true : undefined));

  // Node A drains and exits; a fresh A' takes its place; then B does the same.
  const relinks = () => host.lines.filter((l) => l.event === 'relay' && l.state === 'linked').length;
  let live = [a, b];
  for (const old of [a, b]) {
    const before = relinks();
    const stoppedAt = Date.now();
    expect(await old.stop('SIGTERM')).toBe(0);
    const drainMs = Date.now() - stoppedAt;
    test.info().annotations.push({ type: 'drain (ms)', description: String(drainMs) });
    console.log(`node drained and exited in ${drainMs} ms`);
    live = [...live.filter((r) => r !== old), await node()];
    balancer.backends = live.map((r) => r.port);
    await eventually(() => (relinks() > before ? true : undefined), 30_000, 'the host linked again');
  }

  // Each node told its host to move before it closed anything: the host was never cut off by a
  // node shutting down under it (a redial that reached a draining node was refused with 503).
  const cutOff = host.lines.filter((l) => l.event === 'relay' && String(l.reason).includes('shutting down'));
  expect(cutOff).toEqual([]);

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
