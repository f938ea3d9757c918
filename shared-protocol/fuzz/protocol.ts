// npm run fuzz -- protocol [--seconds N]
// A bounded run that throws random and mutated bytes at every shared-protocol decoder. Fails on
// any exception (a decoder must answer with a typed error) and on any forgery accepted (a changed
// message that still opens). Prints how many inputs it tried.
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

const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 20;
const deadline = Date.now() + seconds * 1000;

const host = generateBoxKeyPair();
const device = generateBoxKeyPair();
const deviceId = generateDeviceId();
const lookupDevice = (id: string) => (id === deviceId ? device.publicKey : undefined);
const key = nacl.randomBytes(32);
const pairingKey = nacl.randomBytes(32);

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

/** The JSON in `bytes`, or undefined when it is not JSON (refused by the HTTP layer first). */
function json(bytes: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(utf8Decode(bytes) ?? '') as unknown };
  } catch {
    return undefined;
  }
}
const link = formatPairingLink({
  base: 'https://h.example:7420',
  hostBoxPublicKey: host.publicKey,
  pairingId: nacl.randomBytes(16),
  pairingKey,
});

function mutate(seed: Uint8Array): Uint8Array {
  const r = Math.random();
  if (r < 0.15) return nacl.randomBytes(Math.floor(Math.random() * 300));
  const copy = Array.from(seed);
  const edits = 1 + Math.floor(Math.random() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(Math.random() * (copy.length + 1));
    const kind = Math.random();
    if (kind < 0.5 && copy.length > 0) copy[at % copy.length]! ^= 1 << Math.floor(Math.random() * 8);
    else if (kind < 0.7) copy.splice(at, 0, Math.floor(Math.random() * 256));
    else if (kind < 0.85) copy.splice(at, 1 + Math.floor(Math.random() * 8));
    else copy.splice(at, 0, ...copy.slice(0, Math.floor(Math.random() * 16)));
  }
  return Uint8Array.from(copy);
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * What a mutated pairing body may open as: itself when it still says what `seed` says (the JSON
 * parses to the same fields, or differs only in the pairing id, which names another link whose
 * key the host would use instead), else only the seed (so opening it is a forgery).
 */
function pairBaseline(mutated: Uint8Array, seed: Uint8Array): Uint8Array {
  const fields = (bytes: Uint8Array) => {
    const value = json(bytes)?.value;
    if (typeof value !== 'object' || value === null) return undefined;
    const { pairingId: _ignored, ...rest } = value as Record<string, unknown>;
    return JSON.stringify(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)));
  };
  return fields(mutated) === fields(seed) ? mutated : seed;
}
let tried = 0;
const failures: string[] = [];

function expectTyped(name: string, input: Uint8Array, run: () => Result<unknown>, original?: Uint8Array) {
  tried++;
  try {
    const r = run();
    if (!r.ok && !isErrorCode(r.error.code)) failures.push(`${name}: untyped error ${String(r.error.code)}`);
    if (r.ok && original && !same(input, original)) failures.push(`${name}: accepted a forgery`);
  } catch (error) {
    failures.push(`${name}: threw ${error instanceof Error ? error.message : String(error)}`);
  }
}

while (Date.now() < deadline && failures.length === 0) {
  for (let i = 0; i < 200; i++) {
    const h = mutate(hello);
    expectTyped(
      'hello',
      h,
      () =>
        new HandshakeResponder({
          hostKeys: host,
          lookupDevice,
          clock: systemClock,
          random: secureRandom,
          replay: new ReplayCache(systemClock),
        }).acceptHello(h),
      hello,
    );
    const f = mutate(frame);
    expectTyped('frame', f, () => new FrameOpener(key).open(f), frame);
    const c = mutate(call);
    expectTyped(
      'call',
      c,
      () => openCall(c, { hostKeys: host, lookupDevice, clock: systemClock, replay: new ReplayCache(systemClock) }),
      call,
    );
    for (const seed of deviceBodies) {
      const p = mutate(seed);
      const parsed = json(p);
      if (parsed) {
        expectTyped(
          'pair (device)',
          p,
          () => {
            const body = decodePairRequestBody(parsed.value);
            return body.ok ? openPairMessage(body.value, pairingKey) : body;
          },
          pairBaseline(p, seed),
        );
      }
    }
    for (const seed of hostBodies) {
      const p = mutate(seed);
      const parsed = json(p);
      if (parsed) {
        expectTyped('pair challenge', p, () => openPairChallenge(parsed.value, pairingKey), pairBaseline(p, seed));
        expectTyped('pair reply', p, () => openPairReply(parsed.value, pairingKey), pairBaseline(p, seed));
      }
    }
    const l = utf8Decode(mutate(utf8Encode(link))) ?? '';
    expectTyped('link', utf8Encode(l), () => parsePairingLink(l));
    const m = mutate(
      utf8Encode(
        '{"t":"evt","event":{"type":"message","sessionId":"s","seq":1,"at":1,"messageId":"m","role":"user","text":"x"}}',
      ),
    );
    tried++;
    try {
      const decoded = decodeChannelMessage(m);
      if (decoded?.t === 'evt') decodeEvent(decoded.event);
    } catch (error) {
      failures.push(`channel: threw ${String(error)}`);
    }
  }
}

console.log(`fuzz protocol: ${tried} inputs in ${seconds} s, ${failures.length} failures`);
for (const f of failures.slice(0, 10)) console.log(`  ${f}`);
process.exit(failures.length > 0 ? 1 : 0);
