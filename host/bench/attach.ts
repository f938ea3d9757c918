// npm run bench -- attach
// A 5 MB photo from bytes in hand to "on the computer" (blobs.finish answered: hashed, checked,
// renamed into the blob store) over loopback through the real sealed path (pairing, handshake,
// sealed frames, the host's dispatch), against the same bytes in the same chunks over a bare `ws`
// pair, written to a file at the other end, measured in the same process and run. Then the drain
// of 100 messages waiting in an outbox after a reconnect: each sent in order with its client
// message id and answered before the next, as the app's outbox does.
import { ATTACHMENT_CHUNK_BYTES, uploadAttachment } from '@tether/shared-protocol';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket, WebSocketServer } from 'ws';
import { connectDevice, pairDevice, until } from '../test/support/remote-device.js';
import { startTestHost } from '../test/support/test-host.js';

const PHOTO_BYTES = 5 * 1024 * 1024;
const ROUNDS = 10;
const QUEUED = 100;

/** A photo-sized file of incompressible bytes that starts as a JPEG does; `seed` makes each one new. */
function photo(seed: number): Uint8Array {
  const bytes = new Uint8Array(PHOTO_BYTES);
  let state = seed * 2654435761 || 1;
  for (let i = 0; i < bytes.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  bytes.set([0xff, 0xd8, 0xff, 0xe0]);
  return bytes;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The same bytes in the same chunks over a bare `ws` pair, appended to a file; answered at the end. */
async function bare(photos: Uint8Array[]): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tether-bench-'));
  const server = createServer();
  const wss = new WebSocketServer({ server, maxPayload: 2 * ATTACHMENT_CHUNK_BYTES });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  let file = -1;
  let got = 0;
  let round = 0;
  wss.on('connection', (socket) =>
    socket.on('message', (data: Buffer) => {
      if (file < 0) file = openSync(join(dir, `p${round++}`), 'w');
      writeSync(file, data);
      got += data.length;
      if (got < PHOTO_BYTES) return;
      closeSync(file);
      file = -1;
      got = 0;
      socket.send('done');
    }),
  );
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  await new Promise<void>((resolve) => client.once('open', () => resolve()));
  const times: number[] = [];
  for (const bytes of photos) {
    const done = new Promise<void>((resolve) => client.once('message', () => resolve()));
    const start = performance.now();
    for (let at = 0; at < bytes.length; at += ATTACHMENT_CHUNK_BYTES)
      client.send(bytes.subarray(at, at + ATTACHMENT_CHUNK_BYTES));
    await done;
    times.push(performance.now() - start);
  }
  client.close();
  wss.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });
  return times;
}

const t = await startTestHost({ remote: { bind: '127.0.0.1', port: 0, roots: [] } });
const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'bench' });
if (!created.ok) throw new Error(created.error.message);
const id = created.value.id;
// The demo's first run waits on an approval: the session stays busy, so messages queue.
await t.waitFor(id, (e) => e.type === 'approval.requested');
const phone = connectDevice(t, await pairDevice(t, { scopes: ['watch', 'approve', 'chat'] }), {
  rpcTimeoutMs: 60_000,
});
await until(() => phone.client.state.name === 'open');
const call = ((method: string, params: unknown) =>
  phone.client.call(method as 'blobs.begin', params as never)) as Parameters<typeof uploadAttachment>[0];

const photos = Array.from({ length: ROUNDS + 1 }, (_, i) => photo(i + 1));
const sealed: number[] = [];
for (const [i, bytes] of photos.entries()) {
  const start = performance.now();
  const uploaded = await uploadAttachment(call, {
    sessionId: id,
    name: `p${i}.jpg`,
    type: 'image/jpeg',
    bytes,
    digest: (b) => Promise.resolve(createHash('sha256').update(b).digest('hex')),
  });
  if (!uploaded.ok) throw new Error(uploaded.error.message);
  // The first is a warm-up, not counted.
  if (i > 0) sealed.push(performance.now() - start);
}
const plain = await bare(photos.slice(1));
const mbps = (ms: number) => ((PHOTO_BYTES / 1024 / 1024 / ms) * 1000).toFixed(0);
console.log(`a 5 MB photo, bytes in hand → on the computer, over loopback (median of ${ROUNDS}, after 1 unmeasured)`);
console.log(
  `  sealed (sha256 + 20 chunks base64url in sealed frames + host hash, check, rename): ${median(sealed).toFixed(1)} ms  (${mbps(median(sealed))} MB/s)`,
);
console.log(
  `  baseline: bare ws, same 20 chunks, written to a file:                              ${median(plain).toFixed(1)} ms  (${mbps(median(plain))} MB/s)`,
);
console.log(`  sealed ÷ bare: ${(median(sealed) / median(plain)).toFixed(2)}×`);

// The outbox after a reconnect: the link drops, comes back, and 100 waiting messages go in order.
phone.sockets.at(-1)!.terminate();
await until(() => phone.client.state.name !== 'open', 5000, 'the link to drop');
await until(() => phone.client.state.name === 'open', 10_000, 'the link to come back');
const drain = async (prefix: string) => {
  const start = performance.now();
  for (let i = 0; i < QUEUED; i++) {
    const sent = await phone.client.call('sessions.send', {
      id,
      text: `queued message ${i}`,
      clientMessageId: `${prefix}-${String(i).padStart(4, '0')}`,
    });
    if (!sent.ok) throw new Error(sent.error.message);
  }
  return performance.now() - start;
};
const first = await drain('bench-outbox');
// The same ids again (every answer lost with the link): each is known and taken once.
const again = await drain('bench-outbox');
console.log(`outbox drain after a reconnect: ${QUEUED} messages, one at a time, in order`);
console.log(`  first delivery: ${first.toFixed(1)} ms (${(first / QUEUED).toFixed(2)} ms a message)`);
console.log(`  sent again with the same ids (all duplicates): ${again.toFixed(1)} ms`);
console.log(`  queued on the computer: ${t.host.parts.sessions.get(id)?.queued ?? 0} (each taken once)`);
phone.client.stop();
await t.close();
