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
import { decodePairRequestBody, openPairRequest, sealPairRequest } from '../src/pairing-messages.js';
import { secureRandom } from '../src/random.js';
import { ReplayCache } from '../src/replay-cache.js';
import { decodeChannelMessage, encodeChannelMessage } from '../src/rpc/channel.js';
import { decodeEvent } from '../src/rpc/events.js';
import { FrameOpener, FrameSealer } from '../src/sealed-frame.js';
import { generateHostIdentity } from '../src/identity.js';
import { answerRelayChallenge, makeRelayChallenge, verifyHostAuth } from '../src/relay/host-auth.js';
import { decodeRelayFrame, encodeRelayFrame } from '../src/relay/relay-frame.js';
import { signRelayTicket, verifyRelayTicket } from '../src/relay/relay-ticket.js';

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
const pairBody = utf8Encode(
  JSON.stringify(
    sealPairRequest({ pairingId: nacl.randomBytes(16), devicePublicKey: device.publicKey, label: 'fuzz' }, pairingKey),
  ),
);
const link = formatPairingLink({
  base: 'https://h.example:7420',
  hostBoxPublicKey: host.publicKey,
  pairingId: nacl.randomBytes(16),
  pairingKey,
});

const relayHost = generateHostIdentity();
const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};
const ticket = signRelayTicket({ deviceId, expiresAt: Date.now() + 3_600_000 }, relayHost.sign);
const challenge = ok(makeRelayChallenge({ origin: 'https://relay.example', clock: systemClock, random: secureRandom }));
const auth = ok(
  answerRelayChallenge(challenge, relayHost.sign, { relayUrl: 'https://relay.example', clock: systemClock }),
);
const relayFrames = [
  ok(encodeRelayFrame({ type: 'open', connId: 3, kind: 'device', deviceId, source: '203.0.113.7' })),
  ok(encodeRelayFrame({ type: 'data', connId: 3, payload: frame })),
  ok(encodeRelayFrame({ type: 'close', connId: 3, code: 4008, reason: 'slow-consumer' })),
  ok(encodeRelayFrame({ type: 'reply', reqId: 9, status: 200, body: utf8Encode('{}') })),
  ok(encodeRelayFrame({ type: 'connect', hostSignPublicKey: relayHost.sign.publicKey, ticket })),
];

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
    const p = mutate(pairBody);
    expectTyped('pair', p, () => {
      const text = utf8Decode(p);
      let json: unknown;
      try {
        json = JSON.parse(text ?? '');
      } catch {
        return { ok: true, value: undefined };
      }
      const body = decodePairRequestBody(json);
      return body.ok ? openPairRequest(body.value, pairingKey) : body;
    });
    const rf = mutate(relayFrames[i % relayFrames.length]!);
    expectTyped('relay frame', rf, () => decodeRelayFrame(rf));
    const t = mutate(ticket);
    expectTyped(
      'relay ticket',
      t,
      () =>
        verifyRelayTicket(t, {
          hostId: relayHost.hostId,
          hostSignPublicKey: relayHost.sign.publicKey,
          clock: systemClock,
        }),
      ticket,
    );
    const a = mutate(auth);
    expectTyped('relay host auth', a, () => verifyHostAuth(challenge, a), auth);
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
