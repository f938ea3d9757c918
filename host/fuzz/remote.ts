// npm run fuzz -- remote [--seconds N | --inputs N]
// A bounded run against a real host on 127.0.0.1: random and mutated bodies at /rc/pair and
// /rc/call, and random and mutated frames at /rc/ws (before the handshake, and after a valid one).
// Fails on a crash, an unhandled rejection, a server that stops answering, or an accepted forgery
// (the mutated messages all carry sessions.create or a pair request; none may take effect, and
// every mutation differs from its seed, so one that took effect was forged). Prints how many
// inputs it tried and the host's refusal counters by reason.
import type { WebSocketConstructor } from '@tether/shared-protocol';
import {
  DeviceClient,
  FrameSealer,
  HandshakeInitiator,
  encodeChannelMessage,
  generateBoxKeyPair,
  parsePairingLink,
  sealCall,
  sealPairRequest,
  secureRandom,
  systemClock,
  utf8Encode,
  webSocketConnect,
} from '@tether/shared-protocol';
import { REMOTE_MUTATIONS, mutate as mutateWith, parseFuzzBudget } from '@tether/shared-protocol/testing';
import { WebSocket } from 'ws';
import { pairDevice } from '../test/support/remote-device.js';
import { startTestHost } from '../test/support/test-host.js';

const parsed = parseFuzzBudget(process.argv.slice(2), { seconds: 30 }, Date.now, (line) => console.log(line));
if (!parsed.ok) {
  console.error(`fuzz remote: ${parsed.message}`);
  process.exit(2);
}
const budget = parsed.budget;
const failures: string[] = [];
process.on('unhandledRejection', (reason) => failures.push(`unhandled rejection: ${String(reason)}`));
process.on('uncaughtException', (error) => failures.push(`uncaught exception: ${error.message}`));

const mutate = (seed: Uint8Array) => mutateWith(seed, Math.random, REMOTE_MUTATIONS);

const t = await startTestHost({
  remote: { bind: '127.0.0.1', port: 0, roots: [] },
  pairAttemptsPerMinute: 1_000_000,
  pairAnswerWaitMs: 50,
});
const remote = { url: t.url, pairing: t.host.gateway.pairing, stats: t.host.gateway.stats };
const device = await pairDevice(t);
const wsUrl = `${remote.url.replace('http', 'ws')}/rc/ws`;
const create = encodeChannelMessage({
  t: 'req',
  id: 1,
  method: 'sessions.create',
  params: { cwd: t.project, text: 'forged' },
});

async function fuzzPair(): Promise<void> {
  const link = parsePairingLink(t.pairLink());
  if (!link.ok) throw new Error('link');
  const valid = utf8Encode(
    JSON.stringify(
      sealPairRequest(
        { pairingId: link.value.pairingId, devicePublicKey: generateBoxKeyPair().publicKey, label: 'fuzz' },
        link.value.pairingKey,
      ),
    ),
  );
  for (let i = 0; i < 20 && budget.more(); i++) {
    budget.tried++;
    const body = mutate(valid);
    await fetch(`${remote.url}/rc/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }).then((r) => r.arrayBuffer());
  }
}

async function fuzzCall(): Promise<void> {
  const valid = sealCall(
    {
      deviceId: device.reply.deviceId,
      deviceKeys: device.keys,
      hostBoxPublicKey: device.hostBoxPublicKey,
      clock: systemClock,
      random: secureRandom,
    },
    create,
  ).message;
  for (let i = 0; i < 20 && budget.more(); i++) {
    budget.tried++;
    await fetch(`${remote.url}/rc/call`, { method: 'POST', body: mutate(valid) }).then((r) => r.arrayBuffer());
  }
}

/** Opens a socket; with `handshake`, completes a real handshake first. Then sends `frames`. */
async function fuzzSocket(handshake: boolean): Promise<void> {
  const ws = new WebSocket(wsUrl);
  const received: Uint8Array[] = [];
  ws.on('message', (data: Buffer) => received.push(new Uint8Array(data)));
  const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()));
  ws.on('error', () => undefined);
  await new Promise<void>((resolve) => ws.on('open', () => resolve()));
  let sealer: FrameSealer | undefined;
  const init = new HandshakeInitiator({
    deviceId: device.reply.deviceId,
    deviceKeys: device.keys,
    hostBoxPublicKey: device.hostBoxPublicKey,
    clock: systemClock,
    random: secureRandom,
  });
  const hello = init.hello();
  if (handshake) {
    ws.send(hello);
    for (let i = 0; i < 200 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const keys = received[0] && init.acceptWelcome(received[0]);
    if (!keys?.ok) throw new Error('handshake failed in the fuzzer');
    sealer = new FrameSealer(keys.value.send);
  }
  for (let i = 0; i < 10 && ws.readyState === ws.OPEN && budget.more(); i++) {
    budget.tried++;
    const seed = sealer ? (sealer.seal(create) as { value: Uint8Array }).value : hello;
    ws.send(Math.random() < 0.2 ? secureRandom(Math.floor(Math.random() * 200)) : mutate(seed));
    await new Promise((r) => setImmediate(r));
  }
  ws.terminate();
  await closed;
}

while (budget.more() && failures.length === 0) {
  await Promise.all([fuzzPair(), fuzzCall(), fuzzSocket(false), fuzzSocket(true)]);
  budget.progress('remote');
  for (const request of remote.pairing.requests()) remote.pairing.deny(request.id);
  if (t.host.sessions.list().length > 0) failures.push('a forged sessions.create took effect');
}

// The server still answers a real client.
const client = new DeviceClient({
  deviceId: device.reply.deviceId,
  deviceKeys: device.keys,
  hostBoxPublicKey: device.hostBoxPublicKey,
  connect: webSocketConnect(wsUrl, WebSocket as unknown as WebSocketConstructor),
});
client.start();
const info = await client.call('host.info', {}, { timeoutMs: 5000 });
client.stop();
if (!info.ok) failures.push(`the server stopped answering: ${info.error.code}`);

const refused = remote.stats.snapshot();
await t.close();
console.log(`fuzz remote: ${budget.summary()}, ${failures.length} failures`);
console.log(
  `  refused by reason: ${Object.entries(refused)
    .map(([k, n]) => `${k}=${n}`)
    .join(', ')}`,
);
for (const f of failures.slice(0, 10)) console.log(`  ${f}`);
process.exit(failures.length > 0 ? 1 : 0);
