// npm run fuzz -- remote [--seconds N | --inputs N]
// A bounded run against a real host on 127.0.0.1: random and mutated bodies at /rc/pair and
// /rc/call, and random and mutated frames at /rc/ws (before the handshake, and after a valid one).
// Fails on a crash, an unhandled rejection, a server that stops answering, or an accepted forgery
// (the mutated messages all carry sessions.create or a pairing step; none may take effect: a
// mutated commit may not be answered with a challenge, a mutated reveal may not reach the computer;
// every mutation differs from its seed, so one that took effect was forged). Prints how many inputs
// it tried and the host's refusal counters by reason.
import type { WebSocketConstructor } from '@tether/shared-protocol';
import {
  DeviceClient,
  FrameSealer,
  HandshakeInitiator,
  encodeChannelMessage,
  generateBoxKeyPair,
  openPairChallenge,
  pairingCommitment,
  parsePairingLink,
  sealCall,
  sealPairCommit,
  sealPairReveal,
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

/** Pair requests shown at the computer so far. */
let shownRequests = 0;
const t = await startTestHost({
  remote: { bind: '127.0.0.1', port: 0, roots: [] },
  pairAttemptsPerMinute: 1_000_000,
  pairAnswerWaitMs: 50,
  onPairRequest: () => shownRequests++,
});
const remote = { url: t.url, pairing: t.host.parts.gateway.pairing, stats: t.host.parts.gateway.stats };
const device = await pairDevice(t);
const wsUrl = `${remote.url.replace('http', 'ws')}/rc/ws`;
const create = encodeChannelMessage({
  t: 'req',
  id: 1,
  method: 'sessions.create',
  params: { cwd: t.project, text: 'forged' },
});

function postPairBytes(body: Uint8Array): Promise<{ status: number; json: unknown }> {
  return fetch(`${remote.url}/rc/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  }).then(async (r) => ({ status: r.status, json: await r.json().catch((): unknown => undefined) }));
}

/** True when `mutated` still parses to the same JSON fields as `seed` (a harmless edit). */
function sameJson(mutated: Uint8Array, seed: Uint8Array): boolean {
  const fields = (bytes: Uint8Array) => {
    try {
      const value = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
      return typeof value === 'object' && value !== null
        ? JSON.stringify(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
        : undefined;
    } catch {
      return undefined;
    }
  };
  return fields(mutated) !== undefined && fields(mutated) === fields(seed);
}

/** Mutated commits, and mutated reveals each answering a fresh real commit. */
async function fuzzPair(): Promise<void> {
  const link = parsePairingLink(t.pairLink());
  if (!link.ok) throw new Error('link');
  const l = link.value;
  const keys = generateBoxKeyPair();
  const nonce = secureRandom(32);
  const commit = utf8Encode(
    JSON.stringify(sealPairCommit(l.pairingId, { commitment: pairingCommitment(keys.publicKey, nonce) }, l.pairingKey)),
  );
  for (let i = 0; i < 10 && budget.more(); i++) {
    budget.tried++;
    const body = mutate(commit);
    const answer = await postPairBytes(body);
    if (answer.status === 200 && !sameJson(body, commit)) failures.push('a mutated pair commit was answered');
  }
  for (let i = 0; i < 10; i++) {
    const answer = await postPairBytes(commit);
    const challenge = openPairChallenge(answer.json, l.pairingKey);
    if (!challenge.ok) return; // the link was replaced meanwhile (failed opens): the next round has a new one
    const reveal = utf8Encode(
      JSON.stringify(
        sealPairReveal(
          l.pairingId,
          { requestId: challenge.value.requestId, devicePublicKey: keys.publicKey, deviceNonce: nonce, label: 'fuzz' },
          l.pairingKey,
        ),
      ),
    );
    budget.tried++;
    const body = mutate(reveal);
    const before = shownRequests;
    await postPairBytes(body);
    // A request shown at the computer must come from an unchanged reveal.
    if (shownRequests > before && !sameJson(body, reveal)) failures.push('a mutated pair reveal reached the computer');
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
  let isClosed = false;
  const closed = new Promise<void>((resolve) =>
    ws.on('close', () => {
      isClosed = true;
      resolve();
    }),
  );
  ws.on('error', () => undefined);
  // The host may refuse the socket before it opens (its per-address caps, under load): then it
  // closes and never opens, and that is an answer, not a hang.
  await Promise.race([new Promise<void>((resolve) => ws.on('open', () => resolve())), closed]);
  if (isClosed) return;
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
    for (let i = 0; i < 2000 && received.length === 0 && !isClosed; i++) await new Promise((r) => setTimeout(r, 5));
    if (isClosed) return;
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

/** Longest a round of the four may take: past it the host has stopped answering one of them. */
const ROUND_MS = 60_000;

/** Runs the four steps of a round; names the ones still waiting when the round runs out of time. */
async function round(steps: Record<string, () => Promise<void>>): Promise<void> {
  const waiting = new Set(Object.keys(steps));
  let timer: NodeJS.Timeout | undefined;
  const ran = Promise.all(Object.entries(steps).map(([name, step]) => step().then(() => waiting.delete(name))));
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ROUND_MS)));
  await Promise.race([ran, late]);
  clearTimeout(timer);
  if (waiting.size > 0) failures.push(`no answer within ${ROUND_MS / 1000} s to: ${[...waiting].join(', ')}`);
}

while (budget.more() && failures.length === 0) {
  await round({
    pair: fuzzPair,
    call: fuzzCall,
    socket: () => fuzzSocket(false),
    'sealed socket': () => fuzzSocket(true),
  });
  budget.progress('remote');
  for (const request of remote.pairing.requests()) remote.pairing.deny(request.id);
  if (t.host.parts.sessions.list().length > 0) failures.push('a forged sessions.create took effect');
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
