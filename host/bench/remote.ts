// npm run bench -- remote
// Latency from an event appended on the host to its arrival, decrypted, at a device over a
// loopback WebSocket (p50, p99), against the same round through a plain unsealed `ws` pair in the
// same process (the baseline); then events per second to one and to ten devices.
import type { SessionEvent } from '@tether/shared-protocol';
import { createServer } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { connectDevice, pairDevice, until } from '../test/support/remote-device.js';
import { startTestHost } from '../test/support/test-host.js';

const ROUNDS = 2000;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function baseline(): Promise<number[]> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const peer = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  await new Promise<void>((resolve) => client.once('open', () => resolve()));
  const serverSide = await peer;
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const got = new Promise<void>((resolve) =>
      client.once('message', (data: Buffer) => {
        JSON.parse(data.toString());
        resolve();
      }),
    );
    const start = performance.now();
    serverSide.send(
      JSON.stringify({
        t: 'evt',
        event: { type: 'notice', sessionId: 's', seq: i, at: Date.now(), level: 'info', text: `event ${i}` },
      }),
    );
    await got;
    times.push(performance.now() - start);
  }
  client.close();
  wss.close();
  server.close();
  return times;
}

const t = await startTestHost({ remote: { bind: '127.0.0.1', port: 0, roots: [] } });
const created = await t.host.sessions.create({ cwd: t.project, text: 'bench' });
if (!created.ok) throw new Error(created.error.message);
const id = created.value.id;
t.host.sessions.interrupt(id);
await t.waitFor(id, (e) => e.type === 'run.finished');

const devices: ReturnType<typeof connectDevice>[] = [];
for (let i = 0; i < 10; i++) devices.push(connectDevice(t, await pairDevice(t, { label: `bench ${i}` })));
const first = devices[0]!;
first.client.watch(id, t.host.log.lastSeq(id));
await until(() => first.client.state.name === 'open');

const sealed: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const seq = t.host.log.lastSeq(id) + 1;
  const got = new Promise<void>((resolve) => {
    const stop = first.client.onEvent((e) => {
      if ((e as SessionEvent).seq === seq) {
        stop();
        resolve();
      }
    });
  });
  const start = performance.now();
  t.host.log.append(id, { type: 'notice', level: 'info', text: `event ${i}` });
  await got;
  sealed.push(performance.now() - start);
}
const plain = await baseline();
const fmt = (v: number) => `${(v * 1000).toFixed(0)} µs`;
console.log(`latency, event appended → decrypted at one device over loopback (${ROUNDS} events, one at a time)`);
console.log(
  `  sealed (SQLite append + seal + ws + open + decode): p50 ${fmt(percentile(sealed, 50))}, p99 ${fmt(percentile(sealed, 99))}`,
);
console.log(
  `  plain ws JSON baseline:                            p50 ${fmt(percentile(plain, 50))}, p99 ${fmt(percentile(plain, 99))}`,
);

async function throughput(count: number, watchers: typeof devices): Promise<number> {
  for (const d of watchers) d.client.watch(id, t.host.log.lastSeq(id));
  await new Promise((r) => setTimeout(r, 100));
  const target = t.host.log.lastSeq(id) + count;
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    t.host.log.append(id, { type: 'message.delta', messageId: 'm', text: 'some streamed words ' });
    if (i % 200 === 0) await new Promise((r) => setImmediate(r));
  }
  await until(() => watchers.every((d) => d.client.lastSeq(id) === target), 60_000, 'every device to receive all');
  return (count / (performance.now() - start)) * 1000;
}

const one = await throughput(5000, [first]);
const ten = await throughput(5000, devices);
console.log('events per second (5000 message.delta events appended in bursts, until every device has them all)');
console.log(
  `  to 1 device: ${Math.round(one).toLocaleString('en-US')}/s   to 10 devices: ${Math.round(ten).toLocaleString('en-US')}/s per device (${Math.round(ten * 10).toLocaleString('en-US')} deliveries/s)`,
);
for (const d of devices) d.client.stop();
await t.close();
