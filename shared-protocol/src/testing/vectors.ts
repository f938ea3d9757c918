import type { X25519 } from '../x25519.js';
import { tweetnaclX25519 } from '../x25519.js';
import { toBase64Url, toHex, utf8Encode } from '../encoding.js';
import { HandshakeInitiator, HandshakeResponder } from '../handshake.js';
import { boxKeyPairFromSecret, fingerprint, hostIdentityFromSeeds } from '../identity.js';
import { sealCall, sealCallReply } from '../one-shot.js';
import { confirmationCode, pairingCommitment } from '../pairing-code.js';
import { formatPairingLink } from '../pairing-link.js';
import type { PairReply } from '../pairing-messages.js';
import { sealPairChallenge, sealPairCommit, sealPairReply, sealPairReveal } from '../pairing-messages.js';
import { ReplayCache } from '../replay-cache.js';
import { answerRelayChallenge } from '../relay/host-auth.js';
import type { RelayFrame } from '../relay/relay-frame.js';
import { signRelayTicket } from '../relay/relay-ticket.js';
import { encodeConnectRequest } from '../relay/relay-urls.js';
import { FrameSealer } from '../sealed-frame.js';
import { ManualClock } from './manual-clock.js';
import { scriptedRandom } from './scripted-random.js';
import { encoded, hex } from './vector-bytes.js';

/**
 * Fixed vectors: explicit inputs (keys, nonces, timestamps, all the randomness) and the exact bytes
 * each codec must produce from them. The same file is checked in Node and in Chromium, so the host
 * and the app cannot drift apart. `computeVectors` makes them; `checkVectors` (check-vectors.ts)
 * recomputes and compares, and opens every output again.
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

/** Recomputes every output from the inputs of `v` (the outputs of `v` are ignored). */
/** `x25519` does the X25519 work (tweetnacl's unless given): every implementation must give these bytes. */
export function computeVectors(v: Vectors, x25519: X25519 = tweetnaclX25519): Vectors {
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
    x25519,
  });
  const hello = initiator.hello();
  const responder = new HandshakeResponder({
    hostKeys,
    lookupDevice: (d) => (d === h.deviceId ? device.publicKey : undefined),
    clock,
    random: scriptedRandom([hex(h.hostEphemeralSecret), hex(h.welcomeNonce)]),
    x25519,
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
      x25519,
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
