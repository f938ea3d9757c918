// npm run fuzz -- protocol [--seconds N | --inputs N]
// A bounded run that throws random and mutated bytes at every shared-protocol decoder. Fails on
// any exception (a decoder must answer with a typed error) and on any forgery accepted (a changed
// message that still opens: every mutation differs from its seed, so an opened one is forged).
// Prints how many inputs it tried and how each decoder refused them.
import nacl from 'tweetnacl';
import { systemClock } from '../src/clock.js';
import { utf8Decode, utf8Encode } from '../src/encoding.js';
import { isErrorCode } from '../src/errors.js';
import type { Result } from '../src/errors.js';
import { HandshakeInitiator, HandshakeResponder } from '../src/handshake.js';
import { generateBoxKeyPair, generateDeviceId } from '../src/identity.js';
import { openCall, sealCall } from '../src/one-shot.js';
import { formatPairingLink, parsePairingLink } from '../src/pairing-link.js';
import { pairingCommitment } from '../src/pairing-code.js';
import {
  decodePairRequestBody,
  openPairChallenge,
  openPairMessage,
  openPairReply,
  sealPairChallenge,
  sealPairCommit,
  sealPairReply,
  sealPairReveal,
} from '../src/pairing-messages.js';
import { secureRandom } from '../src/random.js';
import { ReplayCache } from '../src/replay-cache.js';
import { decodeChannelMessage, encodeChannelMessage } from '../src/rpc/channel.js';
import { decodeEvent } from '../src/rpc/events.js';
import { FrameOpener, FrameSealer } from '../src/sealed-frame.js';
import { generateHostIdentity } from '../src/identity.js';
import { answerRelayChallenge, makeRelayChallenge, verifyHostAuth } from '../src/relay/host-auth.js';
import { encodeRelayFrame } from '../src/relay/relay-frame.js';
import { decodeRelayFrame } from '../src/relay/relay-frame-decode.js';
import { signRelayTicket, verifyRelayTicket } from '../src/relay/relay-ticket.js';
import { parseFuzzBudget } from '../src/testing/fuzz-budget.js';
import { PROTOCOL_MUTATIONS, mutate as mutateWith } from '../src/testing/mutations.js';

const parsed = parseFuzzBudget(process.argv.slice(2), { seconds: 20 }, Date.now, (line) => console.log(line));
if (!parsed.ok) {
  console.error(`fuzz protocol: ${parsed.message}`);
  process.exit(2);
}
const budget = parsed.budget;

/**
 * Seeds are made again this often (milliseconds), well inside the ±2 min hello window, so a long
 * run keeps reaching past the timestamp check instead of only testing staleness.
 */
const RESEED_EVERY_MS = 30_000;

const host = generateBoxKeyPair();
const device = generateBoxKeyPair();
const deviceId = generateDeviceId();
const lookupDevice = (id: string) => (id === deviceId ? device.publicKey : undefined);
const key = nacl.randomBytes(32);
const pairingKey = nacl.randomBytes(32);

function makeSeeds() {
  const hello = new HandshakeInitiator({
    deviceId,
    deviceKeys: device,
    hostBoxPublicKey: host.publicKey,
    clock: systemClock,
    random: secureRandom,
  }).hello();
  const frame = (
    new FrameSealer(key).seal(encodeChannelMessage({ t: 'req', id: 1, method: 'host.info', params: {} })) as {
      value: Uint8Array;
    }
  ).value;
  const call = sealCall(
    { deviceId, deviceKeys: device, hostBoxPublicKey: host.publicKey, clock: systemClock, random: secureRandom },
    utf8Encode('{}'),
  ).message;
  return { hello, frame, call, madeAt: Date.now() };
}

const pairingId = nacl.randomBytes(16);
const deviceNonce = nacl.randomBytes(32);
const requestId = 'RRRRRRRRRRRRRRRRRRRRRQ';
/** A valid body of each pairing message, device → host first, then host → device. */
const deviceBodies = [
  sealPairCommit(pairingId, { commitment: pairingCommitment(device.publicKey, deviceNonce) }, pairingKey),
  sealPairReveal(pairingId, { requestId, devicePublicKey: device.publicKey, deviceNonce, label: 'fuzz' }, pairingKey),
].map((b) => utf8Encode(JSON.stringify(b)));
const hostBodies = [
  sealPairChallenge({ requestId, hostNonce: nacl.randomBytes(32) }, pairingKey),
  sealPairReply(
    {
      deviceId: 'AAAAAAAAAAAAAAAAAAAAAA',
      hostId: 'BBBBBBBBBBBBBBBBBBBBBB',
      hostName: 'fuzz',
      hostBoxPublicKey: 'C'.repeat(42) + 'A',
      hostSignPublicKey: 'D'.repeat(42) + 'A',
      scopes: ['watch'],
    },
    pairingKey,
  ),
].map((b) => utf8Encode(JSON.stringify(b)));

/** The JSON in `bytes`, or a refusal when it is not JSON (the HTTP layer refuses it first). */
function asJson(bytes: Uint8Array): Result<unknown> {
  try {
    return { ok: true, value: JSON.parse(utf8Decode(bytes) ?? '') as unknown };
  } catch {
    return { ok: false, error: { code: 'bad-request', message: 'not JSON' } };
  }
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

const link = utf8Encode(
  formatPairingLink({
    base: 'https://h.example:7420',
    hostBoxPublicKey: host.publicKey,
    pairingId: nacl.randomBytes(16),
    pairingKey,
  }),
);
const event = utf8Encode(
  '{"t":"evt","event":{"type":"message","sessionId":"s","seq":1,"at":1,"messageId":"m","role":"user","text":"x"}}',
);

const relayHost = generateHostIdentity();
const must = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};
const ticket = signRelayTicket({ deviceId, expiresAt: Date.now() + 3_600_000 }, relayHost.sign);
const challenge = must(
  makeRelayChallenge({ origin: 'https://relay.example', clock: systemClock, random: secureRandom }),
);
const auth = must(
  answerRelayChallenge(challenge, relayHost.sign, { relayUrl: 'https://relay.example', clock: systemClock }),
);
const relayFrames = [
  must(encodeRelayFrame({ type: 'open', connId: 3, kind: 'device', deviceId, source: '203.0.113.7' })),
  must(encodeRelayFrame({ type: 'data', connId: 3, payload: nacl.randomBytes(64) })),
  must(encodeRelayFrame({ type: 'close', connId: 3, code: 4008, reason: 'slow-consumer' })),
  must(encodeRelayFrame({ type: 'reply', reqId: 9, status: 200, body: utf8Encode('{}') })),
  must(encodeRelayFrame({ type: 'connect', hostSignPublicKey: relayHost.sign.publicKey, ticket })),
];

const mutate = (seed: Uint8Array) => mutateWith(seed, Math.random, PROTOCOL_MUTATIONS);
const failures: string[] = [];
/** How each input ended, by decoder and error code (`frame:frame-tampered`), or `…:accepted`. */
const outcomes = new Map<string, number>();
const count = (reason: string) => outcomes.set(reason, (outcomes.get(reason) ?? 0) + 1);

/** Runs one decoder on one input: a typed refusal is the expected answer; `forgeable` says an accepted input is a forgery. */
function expectTyped(name: string, run: () => Result<unknown>, forgeable: boolean) {
  budget.tried++;
  try {
    const r = run();
    if (r.ok) {
      count(`${name}:accepted`);
      if (forgeable) failures.push(`${name}: accepted a forgery`);
    } else {
      count(`${name}:${r.error.code}`);
      if (!isErrorCode(r.error.code)) failures.push(`${name}: untyped error ${String(r.error.code)}`);
    }
  } catch (error) {
    failures.push(`${name}: threw ${error instanceof Error ? error.message : String(error)}`);
  }
}

let seeds = makeSeeds();
const cases: (() => void)[] = [
  () => {
    const h = mutate(seeds.hello);
    const responder = new HandshakeResponder({
      hostKeys: host,
      lookupDevice,
      clock: systemClock,
      random: secureRandom,
      replay: new ReplayCache(systemClock),
    });
    expectTyped('hello', () => responder.acceptHello(h), true);
  },
  () => {
    const f = mutate(seeds.frame);
    expectTyped('frame', () => new FrameOpener(key).open(f), true);
  },
  () => {
    const c = mutate(seeds.call);
    const replay = new ReplayCache(systemClock);
    expectTyped('call', () => openCall(c, { hostKeys: host, lookupDevice, clock: systemClock, replay }), true);
  },
  () => {
    // A changed pair body may still say the same thing (JSON allows spaces), so opening is no forgery.
    const p = mutate(pick(deviceBodies));
    expectTyped(
      'pair (device)',
      () => {
        const json = asJson(p);
        if (!json.ok) return json;
        const body = decodePairRequestBody(json.value);
        return body.ok ? openPairMessage(body.value, pairingKey) : body;
      },
      false,
    );
  },
  () => {
    const p = mutate(pick(hostBodies));
    expectTyped(
      'pair (host)',
      () => {
        const json = asJson(p);
        if (!json.ok) return json;
        const challenge = openPairChallenge(json.value, pairingKey);
        return challenge.ok ? challenge : openPairReply(json.value, pairingKey);
      },
      false,
    );
  },
  () => {
    const l = utf8Decode(mutate(link)) ?? '';
    expectTyped('link', () => parsePairingLink(l), false);
  },
  () => {
    // Relay frames carry nothing secret: a changed one that still decodes is just another frame.
    const f = mutate(relayFrames[Math.floor(Math.random() * relayFrames.length)]!);
    expectTyped('relay frame', () => decodeRelayFrame(f), false);
  },
  () => {
    const t = mutate(ticket);
    expectTyped(
      'relay ticket',
      () =>
        verifyRelayTicket(t, {
          hostId: relayHost.hostId,
          hostSignPublicKey: relayHost.sign.publicKey,
          clock: systemClock,
        }),
      true,
    );
  },
  () => {
    const a = mutate(auth);
    expectTyped('relay host auth', () => verifyHostAuth(challenge, a), true);
  },
  () => {
    const m = mutate(event);
    budget.tried++;
    try {
      const decoded = decodeChannelMessage(m);
      if (decoded?.t === 'evt') count(`channel:evt-${decodeEvent(decoded.event).kind}`);
      else count(decoded ? `channel:${decoded.t}` : 'channel:undecodable');
    } catch (error) {
      failures.push(`channel: threw ${String(error)}`);
    }
  },
];

for (let i = 0; budget.more() && failures.length === 0; i++) {
  if (i % 1000 === 0 && Date.now() - seeds.madeAt > RESEED_EVERY_MS) seeds = makeSeeds();
  cases[i % cases.length]!();
  budget.progress('protocol');
}

console.log(`fuzz protocol: ${budget.summary()}, ${failures.length} failures`);
console.log(
  `  outcomes: ${[...outcomes]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}=${n}`)
    .join(', ')}`,
);
for (const f of failures.slice(0, 10)) console.log(`  ${f}`);
process.exit(failures.length > 0 ? 1 : 0);
