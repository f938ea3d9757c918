// npm run bench -- remote
// Latency from an event appended on the host to its arrival, decrypted, at a device over a
// loopback WebSocket (p50, p99), against three baselines measured in the same process and run:
//   - plain: the event as JSON over a bare `ws` pair (network and JSON only);
//   - store + plain: the same, after inserting the event as one row in SQLite with the host's own
//     database settings (WAL, synchronous = NORMAL) and schema;
//   - store + crypto: the same again, the JSON sealed before it is sent and opened where it
//     arrives, with the product's own frame sealer and opener: a 32-byte key, a nonce from each
//     frame's counter, the host's secretbox (libsodium's where it loads) sealing and tweetnacl's
//     opening, as on a phone.
// The ratio to the second isolates what sealing, the protocol and the host's delivery add on top
// of a store and a socket; the ratio to the third, what the protocol and delivery add beyond the
// cryptography a phone must do anyway. The four run in turns, a block of each at a time. Then a
// burst of 100 events appended in one go (the host seals it as batches for a device that takes
// them), per event, against the store + crypto baseline doing the same 100 one by one, in turns.
// Then events per second to one and to ten devices.
import type { SessionEvent } from '@tether/shared-protocol';
import { FrameOpener, FrameSealer, KEY_BYTES, secureRandom, utf8Decode, utf8Encode } from '@tether/shared-protocol';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket, WebSocketServer } from 'ws';
import { benchRowLine } from '@tether/shared-protocol/testing';
import { chooseSecretbox } from '../src/crypto/native-secretbox.js';
import { openDatabase } from '../src/store/database.js';
import { connectDevice, pairDevice, until } from '../test/support/remote-device.js';
import { startTestHost } from '../test/support/test-host.js';

const ROUNDS = 2000;
/** Rounds run and thrown away before each measurement, so none of them pays for a cold JIT. */
const WARMUP = 200;
/** Events in one burst: appended (or stored and sent) in one go, timed until the last arrives. */
const BURST = 100;
/** Bursts timed, after BURST_WARMUP unmeasured, each kind in turns. */
const BURSTS = 60;
const BURST_WARMUP = 10;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One timed event: resolves to the milliseconds from its start to its arrival. */
type Probe = (i: number) => Promise<number>;

/** How a bare pair puts the event's JSON on the wire and takes it off at the other end. */
interface Wire {
  send: (json: string) => string | Uint8Array;
  receive: (data: Buffer) => string;
}

const jsonWire: Wire = { send: (json) => json, receive: (data) => data.toString() };

/**
 * The JSON sealed and opened as the device channel does it: the host's frame sealer with the
 * secretbox it chooses at start, the phone's opener with tweetnacl's, under one fresh 32-byte key.
 */
function sealedWire(): Wire {
  const key = secureRandom(KEY_BYTES);
  const sealer = new FrameSealer(key, undefined, chooseSecretbox());
  const opener = new FrameOpener(key);
  return {
    send(json) {
      const frame = sealer.seal(utf8Encode(json));
      if (!frame.ok) throw new Error(frame.error.message);
      return frame.value;
    },
    receive(data) {
      const plain = opener.open(data);
      const text = plain.ok ? utf8Decode(plain.value) : undefined;
      if (text === undefined) throw new Error('frame refused');
      return text;
    },
  };
}

/**
 * A bare `ws` pair on loopback, one event at a time: `store` (when given) runs first, inside the
 * timed part, then the event goes out as JSON through `wire` and is parsed at the other end.
 */
async function bareProbe(
  store?: (event: SessionEvent) => void,
  wire: Wire = jsonWire,
): Promise<{ probe: Probe; burst: Probe; close: () => void }> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const peer = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  await new Promise<void>((resolve) => client.once('open', () => resolve()));
  const serverSide = await peer;
  let seq = 0;
  /** `count` events stored and sent in one go; the milliseconds until the last is read, per event. */
  const send = async (i: number, count: number) => {
    let left = count;
    const got = new Promise<void>((resolve) => {
      const read = (data: Buffer) => {
        JSON.parse(wire.receive(data));
        if (--left > 0) return;
        client.off('message', read);
        resolve();
      };
      client.on('message', read);
    });
    const start = performance.now();
    for (let k = 0; k < count; k++) {
      const text = `event ${i}`;
      const event: SessionEvent = { type: 'notice', sessionId: 's', seq: ++seq, at: Date.now(), level: 'info', text };
      store?.(event);
      serverSide.send(wire.send(JSON.stringify({ t: 'evt', event })));
    }
    await got;
    return (performance.now() - start) / count;
  };
  const close = () => {
    client.close();
    wss.close();
    server.close();
  };
  return { probe: (i) => send(i, 1), burst: (i) => send(i, BURST), close };
}

/** The bare pair with a store: one INSERT (its own transaction) per event, in a fresh database. */
async function storeProbe(wire?: Wire): Promise<{ probe: Probe; burst: Probe; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'tether-bench-'));
  const db = openDatabase(join(dir, 'bench.db'));
  const now = Date.now();
  db.prepare(
    `INSERT INTO sessions (id, title, kind, place, cwd, model, status, created_at, updated_at)
     VALUES ('s', 'bench', 'agent', 'local', '/', 'demo', 'idle', ?, ?)`,
  ).run(now, now);
  const insert = db.prepare('INSERT INTO events (session_id, seq, type, payload, at) VALUES (?, ?, ?, ?, ?)');
  const bare = await bareProbe(({ type, sessionId, seq, at, ...payload }) => {
    insert.run(sessionId, seq, type, JSON.stringify(payload), at);
  }, wire);
  const close = () => {
    bare.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { ...bare, close };
}

const t = await startTestHost({ remote: { bind: '127.0.0.1', port: 0, roots: [] } });
const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'bench' });
if (!created.ok) throw new Error(created.error.message);
const id = created.value.id;
t.host.parts.sessions.interrupt(id);
await t.waitFor(id, (e) => e.type === 'run.finished');

const devices: ReturnType<typeof connectDevice>[] = [];
for (let i = 0; i < 10; i++) devices.push(connectDevice(t, await pairDevice(t, { label: `bench ${i}` })));
const first = devices[0]!;
first.client.watch(id, t.host.parts.log.lastSeq(id));
await until(() => first.client.state.name === 'open');

/** `count` events appended in one go; the milliseconds until the device has the last, per event. */
const appendAndWait = async (i: number, count: number) => {
  const seq = t.host.parts.log.lastSeq(id) + count;
  const got = new Promise<void>((resolve) => {
    const stop = first.client.onEvent((e) => {
      if ((e as SessionEvent).seq === seq) {
        stop();
        resolve();
      }
    });
  });
  const start = performance.now();
  for (let k = 0; k < count; k++) t.host.parts.log.append(id, { type: 'notice', level: 'info', text: `event ${i}` });
  await got;
  return (performance.now() - start) / count;
};
const sealedProbe: Probe = (i) => appendAndWait(i, 1);
const sealedBurst: Probe = (i) => appendAndWait(i, BURST);

// The four run in turns, a block of each at a time, so that whatever else the machine does
// falls on all of them alike: run one after the other, the ratio moved between 1.5 and 4.5.
const bare = await bareProbe();
const store = await storeProbe();
const boxed = await storeProbe(sealedWire());
const sealed: number[] = [];
const plain: number[] = [];
const stored: number[] = [];
const storedBoxed: number[] = [];
const BLOCK = 100;
for (let i = 0; i < WARMUP + ROUNDS; i += BLOCK) {
  for (const [probe, times] of [
    [sealedProbe, sealed],
    [boxed.probe, storedBoxed],
    [store.probe, stored],
    [bare.probe, plain],
  ] as const) {
    for (let j = i; j < i + BLOCK; j++) {
      const ms = await probe(j);
      if (j >= WARMUP) times.push(ms);
    }
  }
}
const fmt = (v: number) => `${(v * 1000).toFixed(0)} µs`;
const line = (name: string, times: number[]) =>
  console.log(`  ${name.padEnd(54)} p50 ${fmt(percentile(times, 50))}, p99 ${fmt(percentile(times, 99))}`);
const ratio = (over: number[]) =>
  `p50 ${(percentile(sealed, 50) / percentile(over, 50)).toFixed(2)}×, p99 ${(percentile(sealed, 99) / percentile(over, 99)).toFixed(2)}×`;
console.log(
  `latency, event appended → decrypted at one device over loopback (${ROUNDS} events, one at a time, after ${WARMUP} unmeasured)`,
);
line('sealed (event log append + seal + ws + open + decode)', sealed);
line('baseline: SQLite insert (one row) + ws JSON', stored);
line('baseline: SQLite insert + seal + ws + open', storedBoxed);
line('baseline: ws JSON', plain);
console.log(`  sealed ÷ (SQLite + ws): ${ratio(stored)}   (what sealing, the protocol and delivery add)`);
console.log(`  sealed ÷ ws:            ${ratio(plain)}   (everything, the store included)`);
console.log(
  `  sealed ÷ (SQLite + seal + ws + open): ${ratio(storedBoxed)}   (what the protocol and delivery add beyond the crypto)`,
);
/** The sealed path's p50 over one baseline's, as a row CI holds to bench/baseline.json. */
const p50Row = (id: string, label: string, over: number[], overKey: string, target: number) =>
  console.log(
    benchRowLine({
      id,
      label,
      ratio: percentile(sealed, 50) / percentile(over, 50),
      better: 'lower',
      target,
      detail: { sealedP50Us: percentile(sealed, 50) * 1000, [overKey]: percentile(over, 50) * 1000 },
    }),
  );
p50Row(
  'remote.event-latency-p50',
  'event appended → decrypted on a device vs SQLite insert + bare ws, p50',
  stored,
  'storedP50Us',
  1.3,
);
p50Row(
  'remote.event-latency-crypto-p50',
  'event appended → decrypted on a device vs SQLite insert + secretbox seal + bare ws + secretbox open, p50',
  storedBoxed,
  'storedBoxedP50Us',
  1.5,
);

// A burst of events appended in one go, per event, against the same burst stored, sealed, sent and
// opened one by one on the bare pair: the host seals the burst as few batches, the baseline pays a
// seal, a write and an open for each event.
const bursts: number[] = [];
const boxedBursts: number[] = [];
/** Frames the device's socket took during the timed bursts: how many seals and opens they cost. */
let burstFrames = 0;
const countFrame = () => burstFrames++;
for (let i = 0; i < BURST_WARMUP + BURSTS; i++) {
  for (const [probe, times] of [
    [sealedBurst, bursts],
    [boxed.burst, boxedBursts],
  ] as const) {
    const socket = first.sockets.at(-1)!;
    if (probe === sealedBurst && i >= BURST_WARMUP) socket.on('message', countFrame);
    const ms = await probe(i);
    socket.off('message', countFrame);
    if (i >= BURST_WARMUP) times.push(ms);
  }
}
bare.close();
store.close();
boxed.close();
console.log(
  `a burst of ${BURST} events appended in one go → all decrypted at one device (${BURSTS} bursts), per event`,
);
line('sealed (appends, batched seals, ws, opens, decodes)', bursts);
line('baseline: SQLite insert + seal + ws + open, each event', boxedBursts);
const burstRatio = percentile(bursts, 50) / percentile(boxedBursts, 50);
console.log(
  `  sealed ÷ baseline: p50 ${burstRatio.toFixed(2)}×   (${(burstFrames / BURSTS).toFixed(1)} frames a burst to the device)`,
);
console.log(
  benchRowLine({
    id: 'remote.event-burst-crypto-p50',
    label: `a burst of ${BURST} events → decrypted on a device, per event, vs SQLite insert + seal + bare ws + open each, p50`,
    ratio: burstRatio,
    better: 'lower',
    target: 1.5,
    detail: { burstP50Us: percentile(bursts, 50) * 1000, boxedBurstP50Us: percentile(boxedBursts, 50) * 1000 },
  }),
);

async function throughput(count: number, watchers: typeof devices): Promise<number> {
  for (const d of watchers) d.client.watch(id, t.host.parts.log.lastSeq(id));
  await new Promise((r) => setTimeout(r, 100));
  const target = t.host.parts.log.lastSeq(id) + count;
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    t.host.parts.log.append(id, { type: 'message.delta', messageId: 'm', text: 'some streamed words ' });
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
