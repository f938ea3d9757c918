import type { X25519 } from '../x25519.js';
import { tweetnaclX25519 } from '../x25519.js';
import nacl from 'tweetnacl';
import { boxKeyFromSharedSecret, precomputedStaticKey } from '../device-key.js';
import { toHex, fromBase64Url, utf8Encode } from '../encoding.js';
import { HandshakeInitiator } from '../handshake.js';
import { boxKeyPairFromSecret, hostIdentityFromSeeds } from '../identity.js';
import { openCall, openCallReply } from '../one-shot.js';
import { parsePairingLink } from '../pairing-link.js';
import { decodePairRequestBody, openPairChallenge, openPairMessage, openPairReply } from '../pairing-messages.js';
import { ReplayCache } from '../replay-cache.js';
import { verifyHostAuth } from '../relay/host-auth.js';
import { decodeRelayFrame } from '../relay/relay-frame-decode.js';
import { verifyRelayTicket } from '../relay/relay-ticket.js';
import { FrameOpener } from '../sealed-frame.js';
import { ManualClock } from './manual-clock.js';
import { scriptedRandom } from './scripted-random.js';
import type { Vectors } from './vectors.js';
import { computeVectors } from './vectors.js';
import { encoded, hex } from './vector-bytes.js';

export interface VectorCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

/** Recomputes the vectors and also opens every sealed output with the receiving side's code. */
/** `x25519` does the X25519 work on both sides (tweetnacl's unless given). */
export function checkVectors(expected: Vectors, x25519: X25519 = tweetnaclX25519): VectorCheck[] {
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
    actual = computeVectors(expected, x25519);
  } catch (error) {
    return [{ name: 'compute', ok: false, detail: String(error) }];
  }
  same('base64url', actual.base64url, expected.base64url);
  for (const { hex: h, text } of expected.base64url)
    same(`base64url decode ${text}`, toHex(fromBase64Url(text) ?? new Uint8Array()), h);
  same('identity', actual.identity, expected.identity);
  /** Each named part of a section, recomputed against the vectors. */
  const sameParts = <T>(got: T, want: T, names: Partial<Record<keyof T, string>>) => {
    for (const key of Object.keys(names) as (keyof T)[]) same(names[key]!, got[key], want[key]);
  };
  sameParts(actual.pairing, expected.pairing, {
    link: 'pairing link',
    commitment: 'pairing commitment',
    commit: 'pairing commit',
    challenge: 'pairing challenge',
    reveal: 'pairing reveal',
    replyBody: 'pairing reply',
    confirmationCode: 'confirmation code',
  });
  sameParts(actual.handshake, expected.handshake, { hello: 'hello', welcome: 'welcome' });
  same(
    'session keys',
    [actual.handshake.deviceToHost, actual.handshake.hostToDevice],
    [expected.handshake.deviceToHost, expected.handshake.hostToDevice],
  );
  same('hello with a static key', helloWithStaticKey(expected), expected.handshake.hello);
  same('frames', actual.frames.frames, expected.frames.frames);
  sameParts(actual.oneShot, expected.oneShot, { call: 'one-shot call', reply: 'one-shot reply' });
  sameParts(actual.relay, expected.relay, {
    ticket: 'relay ticket',
    challenge: 'relay challenge',
    auth: 'relay host auth',
    connect: 'relay connect request',
  });
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
    x25519,
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
