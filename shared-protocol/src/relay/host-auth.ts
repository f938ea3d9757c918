import nacl from 'tweetnacl';
import type { Clock } from '../clock.js';
import { concatBytes, utf8Encode } from '../encoding.js';
import type { Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import type { SignKeyPair } from '../identity.js';
import { hostIdFromSignKey } from '../identity.js';
import type { RandomBytes } from '../random.js';
import { RELAY_CHALLENGE_NONCE_BYTES, encodeRelayFrame } from './relay-frame.js';
import { decodeRelayFrame } from './relay-frame-decode.js';
import { RELAY_CLOCK_SKEW_MS } from './relay-limits.js';

/**
 * How a host proves its id to a relay on `WS /relay/host`:
 *
 *   relay → host  challenge = version | 0x01 | nonce(32) | time(8) | origin
 *   host → relay  auth      = version | 0x02 | signPublicKey(32) | signature(64)
 *   signature = Ed25519(host sign key, "tether/1 relay host auth" | 0x00 | challenge)
 *
 * The relay derives the host id from the key (it never takes a claimed id), and checks the
 * signature over the exact challenge it sent: the fresh nonce means an old answer is worth nothing.
 * The host checks the origin before signing, so a relay cannot pass another relay's challenge
 * through and use the answer to pose as the host there; the time bounds how long an answer made
 * for an intercepted challenge could be used.
 */

const LABEL = utf8Encode('tether/1 relay host auth\u0000');

/** The origin a relay names in its challenge: scheme, host and port of its public URL. `ws:` and
 * `wss:` URLs count as `http:` and `https:`. Undefined for anything else. */
export function relayOrigin(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const schemes: Record<string, string> = { 'http:': 'http:', 'https:': 'https:', 'ws:': 'http:', 'wss:': 'https:' };
  const scheme = schemes[parsed.protocol];
  if (!scheme || parsed.username || parsed.password) return undefined;
  return `${scheme}//${parsed.host}`;
}

/** Relay side: a fresh challenge naming this relay's origin. */
export function makeRelayChallenge(options: {
  origin: string;
  clock: Pick<Clock, 'now'>;
  random: RandomBytes;
}): Result<Uint8Array> {
  return encodeRelayFrame({
    type: 'challenge',
    nonce: options.random(RELAY_CHALLENGE_NONCE_BYTES),
    time: options.clock.now(),
    origin: options.origin,
  });
}

/**
 * Host side: checks that the challenge comes from the relay the host meant to reach, at about
 * the present time, and signs it. Returns the `auth` message to send.
 */
export function answerRelayChallenge(
  challenge: Uint8Array,
  sign: SignKeyPair,
  options: { relayUrl: string; clock: Pick<Clock, 'now'>; skewMs?: number },
): Result<Uint8Array> {
  const frame = decodeRelayFrame(challenge);
  if (!frame.ok || frame.value.type !== 'challenge') return fail('handshake-malformed', 'expected a relay challenge');
  const expected = relayOrigin(options.relayUrl);
  if (!expected || frame.value.origin !== expected) {
    return fail(
      'handshake-failed',
      `the relay names itself ${frame.value.origin}, not ${expected ?? options.relayUrl}`,
    );
  }
  if (Math.abs(options.clock.now() - frame.value.time) > (options.skewMs ?? RELAY_CLOCK_SKEW_MS)) {
    return fail('handshake-stale', "the relay's clock differs from this one by more than the allowed skew");
  }
  return encodeRelayFrame({
    type: 'auth',
    signPublicKey: sign.publicKey,
    signature: nacl.sign.detached(concatBytes(LABEL, challenge), sign.secretKey),
  });
}

/** Relay side: checks the host's answer to the challenge it sent; gives the proven host id. */
export function verifyHostAuth(
  challenge: Uint8Array,
  answer: Uint8Array,
): Result<{ hostId: string; signPublicKey: Uint8Array }> {
  const frame = decodeRelayFrame(answer);
  if (!frame.ok) return frame.error.code === 'version-unsupported' ? frame : fail('handshake-malformed', 'bad auth');
  if (frame.value.type !== 'auth') return fail('handshake-malformed', 'expected an auth message');
  const { signPublicKey, signature } = frame.value;
  if (!nacl.sign.detached.verify(concatBytes(LABEL, challenge), signature, signPublicKey)) {
    return fail('handshake-failed', 'the signature over the challenge does not hold');
  }
  return ok({ hostId: hostIdFromSignKey(signPublicKey), signPublicKey: signPublicKey.slice() });
}
