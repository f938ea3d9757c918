import nacl from 'tweetnacl';
import { boxKeyFromSharedSecret, precomputedStaticKey } from '../device-key.js';
import { fromHex, toBase64Url, toHex, fromBase64Url, utf8Encode } from '../encoding.js';
import { HandshakeInitiator, HandshakeResponder } from '../handshake.js';
import { boxKeyPairFromSecret, fingerprint, hostIdentityFromSeeds } from '../identity.js';
import { openCall, openCallReply, sealCall, sealCallReply } from '../one-shot.js';
import { confirmationCode, pairingCommitment } from '../pairing-code.js';
import { formatPairingLink, parsePairingLink } from '../pairing-link.js';
import type { PairReply } from '../pairing-messages.js';
import {
  decodePairRequestBody,
  openPairChallenge,
  openPairMessage,
  openPairReply,
  sealPairChallenge,
  sealPairCommit,
  sealPairReply,
  sealPairReveal,
} from '../pairing-messages.js';
import { ReplayCache } from '../replay-cache.js';
import { answerRelayChallenge, verifyHostAuth } from '../relay/host-auth.js';
import type { RelayFrame } from '../relay/relay-frame.js';
import { decodeRelayFrame, encodeRelayFrame } from '../relay/relay-frame.js';
import { signRelayTicket, verifyRelayTicket } from '../relay/relay-ticket.js';
import { encodeConnectRequest } from '../relay/relay-urls.js';
import { FrameOpener, FrameSealer } from '../sealed-frame.js';
import { ManualClock } from './manual-clock.js';
import { scriptedRandom } from './scripted-random.js';

/**
 * Fixed vectors: explicit inputs (keys, nonces, timestamps, all the randomness) and the exact bytes
 * each codec must produce from them. The same file is checked in Node and in Chromium, so the host
 * and the app cannot drift apart. `computeVectors` makes them; `checkVectors` recomputes and
 * compares, and opens every output again.
 */
export interface Vectors {
  base64url: { hex: string; text: string }[];
  identity: {
    boxSecret: string;
    signSeed: string;
    boxPublic: string;
    signPublic: string;
    hostId: string;
    fingerprint: string;
  };
  pairing: {
    base: string;
    hostBoxPublic: string;
    pairingId: string;
    pairingKey: string;
    link: string;
    deviceSecret: string;
    label: string;
    deviceNonce: string;
    commitment: string;
    commitNonce: string;
    commit: unknown;
    requestId: string;
    hostNonce: string;
    challengeNonce: string;
    challenge: unknown;
    revealNonce: string;
    reveal: unknown;
    confirmationCode: string;
    reply: PairReply;
    replyNonce: string;
    replyBody: unknown;
  };
  handshake: {
    hostSecret: string;
    deviceSecret: string;
    deviceId: string;
    time: number;
    deviceEphemeralSecret: string;
    helloNonce: string;
    hello: string;
    hostEphemeralSecret: string;
    welcomeNonce: string;
    welcome: string;
    deviceToHost: string;
    hostToDevice: string;
  };
  frames: { key: string; plaintexts: string[]; frames: string[] };
  oneShot: {
    hostSecret: string;
    deviceSecret: string;
    deviceId: string;
    time: number;
    ephemeralSecret: string;
    nonce: string;
    body: string;
    call: string;
    replyNonce: string;
    replyBody: string;
    reply: string;
  };
  relay: {
    signSeed: string;
    deviceId: string;
    expiresAt: number;
    ticket: string;
    relayUrl: string;
    time: number;
    challengeNonce: string;
    challenge: string;
    auth: string;
    connect: string;
    /** Host-link frames: each input with its byte fields in hex, and the encoding. */
    frames: { input: Record<string, unknown>; hex: string }[];
  };
}

const hex = (h: string) => {
  const b = fromHex(h);
  if (!b) throw new Error(`bad hex in vectors: ${h.slice(0, 16)}`);
  return b;
};

/** Recomputes every output from the inputs of `v` (the outputs of `v` are ignored). */
export function computeVectors(v: Vectors): Vectors {
  const base64url = v.base64url.map(({ hex: h }) => ({ hex: h, text: toBase64Url(hex(h)) }));

  const id = hostIdentityFromSeeds(hex(v.identity.boxSecret), hex(v.identity.signSeed));
  const identity = {
    ...v.identity,
    boxPublic: toHex(id.box.publicKey),
    signPublic: toHex(id.sign.publicKey),
    hostId: id.hostId,
    fingerprint: fingerprint(id.box.publicKey),
  };

  const p = v.pairing;
  const deviceKeys = boxKeyPairFromSecret(hex(p.deviceSecret));
  const link = formatPairingLink({
    base: p.base,
    hostBoxPublicKey: hex(p.hostBoxPublic),
    pairingId: hex(p.pairingId),
    pairingKey: hex(p.pairingKey),
  });
  const commitment = pairingCommitment(deviceKeys.publicKey, hex(p.deviceNonce));
  const commit = sealPairCommit(
    hex(p.pairingId),
    { commitment },
    hex(p.pairingKey),
    scriptedRandom([hex(p.commitNonce)]),
  );
  const challenge = sealPairChallenge(
    { requestId: p.requestId, hostNonce: hex(p.hostNonce) },
    hex(p.pairingKey),
    scriptedRandom([hex(p.challengeNonce)]),
  );
  const reveal = sealPairReveal(
    hex(p.pairingId),
    { requestId: p.requestId, devicePublicKey: deviceKeys.publicKey, deviceNonce: hex(p.deviceNonce), label: p.label },
    hex(p.pairingKey),
    scriptedRandom([hex(p.revealNonce)]),
  );
  const replyBody = sealPairReply(p.reply, hex(p.pairingKey), scriptedRandom([hex(p.replyNonce)]));
  const pairing = {
    ...p,
    link,
    commitment: toHex(commitment),
    commit,
    challenge,
    reveal,
    replyBody,
    confirmationCode: confirmationCode({
      hostBoxPublicKey: hex(p.hostBoxPublic),
      devicePublicKey: deviceKeys.publicKey,
      pairingKey: hex(p.pairingKey),
      deviceNonce: hex(p.deviceNonce),
      hostNonce: hex(p.hostNonce),
    }),
  };

  const h = v.handshake;
  const hostKeys = boxKeyPairFromSecret(hex(h.hostSecret));
  const device = boxKeyPairFromSecret(hex(h.deviceSecret));
  const clock = new ManualClock(h.time);
  const initiator = new HandshakeInitiator({
    deviceId: h.deviceId,
    deviceKeys: device,
    hostBoxPublicKey: hostKeys.publicKey,
    clock,
    random: scriptedRandom([hex(h.deviceEphemeralSecret), hex(h.helloNonce)]),
  });
  const hello = initiator.hello();
  const responder = new HandshakeResponder({
    hostKeys,
    lookupDevice: (d) => (d === h.deviceId ? device.publicKey : undefined),
    clock,
    random: scriptedRandom([hex(h.hostEphemeralSecret), hex(h.welcomeNonce)]),
    replay: new ReplayCache(clock),
  });
  const accepted = responder.acceptHello(hello);
  if (!accepted.ok) throw new Error(`handshake vector refused: ${accepted.error.code}`);
  const handshake = {
    ...h,
    hello: toHex(hello),
    welcome: toHex(accepted.value.welcome),
    deviceToHost: toHex(accepted.value.keys.receive),
    hostToDevice: toHex(accepted.value.keys.send),
  };

  const sealer = new FrameSealer(hex(v.frames.key));
  const frames = {
    ...v.frames,
    frames: v.frames.plaintexts.map((t) => {
      const r = sealer.seal(utf8Encode(t));
      if (!r.ok) throw new Error(r.error.code);
      return toHex(r.value);
    }),
  };

  const o = v.oneShot;
  const oClock = new ManualClock(o.time);
  const sealed = sealCall(
    {
      deviceId: o.deviceId,
      deviceKeys: boxKeyPairFromSecret(hex(o.deviceSecret)),
      hostBoxPublicKey: boxKeyPairFromSecret(hex(o.hostSecret)).publicKey,
      clock: oClock,
      random: scriptedRandom([hex(o.ephemeralSecret), hex(o.nonce)]),
    },
    utf8Encode(o.body),
  );
  const reply = sealCallReply(sealed.replyKey, utf8Encode(o.replyBody), scriptedRandom([hex(o.replyNonce)]));
  const oneShot = { ...o, call: toHex(sealed.message), reply: toHex(reply) };

  return { base64url, identity, pairing, handshake, frames, oneShot, relay: computeRelay(v.relay) };
}

const BYTE_FIELDS = new Set(['nonce', 'payload', 'body', 'signPublicKey', 'signature', 'hostSignPublicKey', 'ticket']);

/** A frame from its vector input: byte fields are hex there. */
function frameFromInput(input: Record<string, unknown>): RelayFrame {
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(input)) out[k] = BYTE_FIELDS.has(k) ? hex(value as string) : value;
  return out as unknown as RelayFrame;
}

function encoded(frame: RelayFrame): string {
  const r = encodeRelayFrame(frame);
  if (!r.ok) throw new Error(`relay vector ${frame.type}: ${r.error.message}`);
  return toHex(r.value);
}

function computeRelay(r: Vectors['relay']): Vectors['relay'] {
  const sign = hostIdentityFromSeeds(new Uint8Array(32), hex(r.signSeed)).sign;
  const ticket = signRelayTicket({ deviceId: r.deviceId, expiresAt: r.expiresAt }, sign);
  const challenge = encoded({
    type: 'challenge',
    nonce: hex(r.challengeNonce),
    time: r.time,
    origin: r.relayUrl,
  });
  const auth = answerRelayChallenge(hex(challenge), sign, { relayUrl: r.relayUrl, clock: new ManualClock(r.time) });
  if (!auth.ok) throw new Error(`relay auth vector: ${auth.error.message}`);
  const connect = encodeConnectRequest(sign.publicKey, ticket);
  if (!connect.ok) throw new Error(`relay connect vector: ${connect.error.message}`);
  return {
    ...r,
    ticket: toHex(ticket),
    challenge,
    auth: toHex(auth.value),
    connect: toHex(connect.value),
    frames: r.frames.map(({ input }) => ({ input, hex: encoded(frameFromInput(input)) })),
  };
}

export interface VectorCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

/** Recomputes the vectors and also opens every sealed output with the receiving side's code. */
export function checkVectors(expected: Vectors): VectorCheck[] {
  const checks: VectorCheck[] = [];
  const same = (name: string, got: unknown, want: unknown) => {
    const a = JSON.stringify(got);
    const b = JSON.stringify(want);
    checks.push(
      a === b ? { name, ok: true } : { name, ok: false, detail: `got ${a.slice(0, 200)} want ${b.slice(0, 200)}` },
    );
  };
  let actual: Vectors;
  try {
    actual = computeVectors(expected);
  } catch (error) {
    return [{ name: 'compute', ok: false, detail: String(error) }];
  }
  same('base64url', actual.base64url, expected.base64url);
  for (const { hex: h, text } of expected.base64url)
    same(`base64url decode ${text}`, toHex(fromBase64Url(text) ?? new Uint8Array()), h);
  same('identity', actual.identity, expected.identity);
  same('pairing link', actual.pairing.link, expected.pairing.link);
  same('pairing commitment', actual.pairing.commitment, expected.pairing.commitment);
  same('pairing commit', actual.pairing.commit, expected.pairing.commit);
  same('pairing challenge', actual.pairing.challenge, expected.pairing.challenge);
  same('pairing reveal', actual.pairing.reveal, expected.pairing.reveal);
  same('pairing reply', actual.pairing.replyBody, expected.pairing.replyBody);
  same('confirmation code', actual.pairing.confirmationCode, expected.pairing.confirmationCode);
  same('hello', actual.handshake.hello, expected.handshake.hello);
  same('welcome', actual.handshake.welcome, expected.handshake.welcome);
  same(
    'session keys',
    [actual.handshake.deviceToHost, actual.handshake.hostToDevice],
    [expected.handshake.deviceToHost, expected.handshake.hostToDevice],
  );
  same('hello with a static key', helloWithStaticKey(expected), expected.handshake.hello);
  same('frames', actual.frames.frames, expected.frames.frames);
  same('one-shot call', actual.oneShot.call, expected.oneShot.call);
  same('one-shot reply', actual.oneShot.reply, expected.oneShot.reply);
  same('relay ticket', actual.relay.ticket, expected.relay.ticket);
  same('relay challenge', actual.relay.challenge, expected.relay.challenge);
  same('relay host auth', actual.relay.auth, expected.relay.auth);
  same('relay connect request', actual.relay.connect, expected.relay.connect);
  same(
    'relay frames',
    actual.relay.frames.map((f) => f.hex),
    expected.relay.frames.map((f) => f.hex),
  );

  // The receiving side opens what the vectors hold.
  const p = expected.pairing;
  const parsedLink = parsePairingLink(p.link);
  same('link parses', parsedLink.ok && toHex(parsedLink.value.pairingKey), p.pairingKey);
  const openDevice = (b: unknown) => {
    const body = decodePairRequestBody(b);
    return body.ok ? openPairMessage(body.value, hex(p.pairingKey)) : body;
  };
  const commit = openDevice(p.commit);
  same(
    'commit opens',
    commit.ok && commit.value.type === 'pair-commit' && toHex(commit.value.commitment),
    p.commitment,
  );
  const challenge = openPairChallenge(p.challenge, hex(p.pairingKey));
  same('challenge opens', challenge.ok && [challenge.value.requestId, toHex(challenge.value.hostNonce)], [
    p.requestId,
    p.hostNonce,
  ]);
  const reveal = openDevice(p.reveal);
  same('reveal opens', reveal.ok && reveal.value.type === 'pair-reveal' && reveal.value.label, p.label);
  const reply = openPairReply(p.replyBody, hex(p.pairingKey));
  same('reply opens', reply.ok && reply.value, p.reply);
  const opener = new FrameOpener(hex(expected.frames.key));
  same(
    'frames open',
    expected.frames.frames.map((f) => {
      const r = opener.open(hex(f));
      return r.ok ? toHex(r.value) : r.error.code;
    }),
    expected.frames.plaintexts.map((t) => toHex(utf8Encode(t))),
  );
  const o = expected.oneShot;
  const call = openCall(hex(o.call), {
    hostKeys: boxKeyPairFromSecret(hex(o.hostSecret)),
    lookupDevice: () => boxKeyPairFromSecret(hex(o.deviceSecret)).publicKey,
    clock: new ManualClock(o.time),
    replay: new ReplayCache(new ManualClock(o.time)),
  });
  same('one-shot opens', call.ok && toHex(call.value.body), toHex(utf8Encode(o.body)));
  const callReply = call.ok ? openCallReply(hex(o.reply), call.value.replyKey) : call;
  same('one-shot reply opens', callReply.ok && toHex(callReply.value), toHex(utf8Encode(o.replyBody)));
  const r = expected.relay;
  const signPublic = hostIdentityFromSeeds(new Uint8Array(32), hex(r.signSeed)).sign.publicKey;
  const hostId = hostIdentityFromSeeds(new Uint8Array(32), hex(r.signSeed)).hostId;
  const ticket = verifyRelayTicket(hex(r.ticket), {
    hostId,
    hostSignPublicKey: signPublic,
    clock: new ManualClock(r.time),
  });
  same('relay ticket verifies', ticket.ok && ticket.value.deviceId, r.deviceId);
  const auth = verifyHostAuth(hex(r.challenge), hex(r.auth));
  same('relay host auth verifies', auth.ok && auth.value.hostId, hostId);
  same(
    'relay frames decode',
    r.frames.map((f) => {
      const d = decodeRelayFrame(hex(f.hex));
      return d.ok ? encoded(d.value) : d.error.code;
    }),
    r.frames.map((f) => f.hex),
  );
  return checks;
}

/**
 * The hello again, made the way an app with a non-extractable key makes it: the device holds only
 * its public key and the box key (HSalsa20 of the raw X25519 output, as WebCrypto's deriveBits
 * gives it). It must be the same bytes.
 */
function helloWithStaticKey(v: Vectors): string {
  const h = v.handshake;
  const device = boxKeyPairFromSecret(hex(h.deviceSecret));
  const hostPublic = boxKeyPairFromSecret(hex(h.hostSecret)).publicKey;
  const boxKey = boxKeyFromSharedSecret(nacl.scalarMult(device.secretKey, hostPublic));
  return toHex(
    new HandshakeInitiator({
      deviceId: h.deviceId,
      deviceKeys: precomputedStaticKey(device.publicKey, hostPublic, boxKey),
      hostBoxPublicKey: hostPublic,
      clock: new ManualClock(h.time),
      random: scriptedRandom([hex(h.deviceEphemeralSecret), hex(h.helloNonce)]),
    }).hello(),
  );
}
