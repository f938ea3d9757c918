import nacl from 'tweetnacl';
import type { Clock } from './clock.js';
import { concatBytes, fromBase64UrlExact, readUint64, toBase64Url, utf8Encode, writeUint64 } from './encoding.js';
import type { Result } from './errors.js';
import { BugError, fail, ok } from './errors.js';
import type { InitiatorOptions } from './handshake.js';
import { sharedSecret } from './handshake.js';
import { staticBoxKey } from './device-key.js';
import type { BoxKeyPair } from './identity.js';
import { DEVICE_ID_BYTES, KEY_BYTES } from './key-sizes.js';
import type { X25519 } from './x25519.js';
import { boxBefore, tweetnaclX25519 } from './x25519.js';
import { HANDSHAKE_CLOCK_WINDOW_MS, MAX_ONE_SHOT_BODY } from './limits.js';
import type { RandomBytes } from './random.js';
import type { ReplayCache } from './replay-cache.js';
import { PROTOCOL_VERSION } from './version.js';
import { MessageKind } from './wire.js';

/**
 * A one-shot call, for a client that cannot hold a socket (a service worker answering a
 * notification action):
 *
 *   call  = 0x04 | version | deviceId(16) | Ed(32) | nonce(24) | secretbox_kreq(timestamp(8) | body)
 *   reply = 0x05 | nonce(24) | secretbox_krep(body)
 *   kreq | krep = SHA-512(label | box.before(Sd, Sh) | X25519(Ed, Sh) | header)
 *
 * Both static keys authenticate the call; the fresh ephemeral key makes every call's keys
 * distinct and binds the reply to its call. The host refuses a timestamp outside the window and a
 * call it has already seen (replay cache keyed by the header). The replay cache lives in memory,
 * so after a restart the host also refuses a call stamped before its start (`notBefore`) and one
 * stamped no later than the newest call of the same device it acted on before (`takenBefore`, from
 * its store): a device whose clock runs ahead stamps calls that stay inside the window for up to
 * two windows after they were made, far longer than a restart takes.
 */

const HEADER_BYTES = 2 + DEVICE_ID_BYTES + KEY_BYTES + 24;
const KEY_LABEL = utf8Encode('tether/1 one-shot');

function deriveCallKeys(ss: Uint8Array, es: Uint8Array, header: Uint8Array) {
  const k = nacl.hash(concatBytes(KEY_LABEL, ss, es, header));
  return { request: k.slice(0, 32), reply: k.slice(32, 64) };
}

export interface SealedCall {
  message: Uint8Array;
  /** Keep it to open the reply; forget it after. */
  replyKey: Uint8Array;
}

/** A call is sealed with what a handshake's initiator holds. */
export function sealCall(options: InitiatorOptions, body: Uint8Array): SealedCall {
  const x25519 = options.x25519 ?? tweetnaclX25519;
  const id = fromBase64UrlExact(options.deviceId, DEVICE_ID_BYTES);
  if (!id) throw new BugError('deviceId is not 16 bytes of base64url');
  const ephemeral = x25519.keyPair(options.random);
  const nonce = options.random(24);
  const header = concatBytes(Uint8Array.of(MessageKind.Call, PROTOCOL_VERSION), id, ephemeral.publicKey, nonce);
  const ss = staticBoxKey(options.deviceKeys, options.hostBoxPublicKey, x25519.scalarMult);
  const es = sharedSecret(ephemeral.secretKey, options.hostBoxPublicKey, x25519);
  if (!es) throw new BugError('host public key is a low-order point');
  const keys = deriveCallKeys(ss, es, header);
  const box = nacl.secretbox(concatBytes(writeUint64(options.clock.now()), body), nonce, keys.request);
  return { message: concatBytes(header, box), replyKey: keys.reply };
}

export interface OpenedCall {
  deviceId: string;
  body: Uint8Array;
  replyKey: Uint8Array;
  /** The call's timestamp (ms since the epoch, the device's clock), for the host to keep. */
  stampedAt: number;
}

/**
 * The checks of a call that need no key: its size, kind, version and length. Whoever forwards a
 * call (the relay) makes them before it looks for the host, so a malformed call gets the same
 * answer whatever host it names; `openCall` makes the same checks first.
 */
export function checkCallShape(message: Uint8Array): Result<void> {
  if (message.length > MAX_ONE_SHOT_BODY) return fail('too-large', 'one-shot call is too large');
  if (message.length < 2 || message[0] !== MessageKind.Call)
    return fail('handshake-malformed', 'expected a call message');
  if (message[1] !== PROTOCOL_VERSION) {
    return fail('version-unsupported', `client speaks protocol ${message[1]}; this host speaks ${PROTOCOL_VERSION}`);
  }
  if (message.length < HEADER_BYTES + nacl.secretbox.overheadLength + 8) {
    return fail('handshake-malformed', 'call is too short');
  }
  return ok(undefined);
}

export function openCall(
  message: Uint8Array,
  options: {
    hostKeys: BoxKeyPair;
    lookupDevice: (deviceId: string) => Uint8Array | undefined;
    clock: Pick<Clock, 'now'>;
    replay: ReplayCache;
    windowMs?: number;
    /**
     * Milliseconds since the epoch before which no call is taken: when the replay cache began
     * (the host's start). A call stamped earlier may have been seen by a cache that is gone.
     */
    notBefore?: number;
    /**
     * The newest timestamp of a call from this device that an earlier run of the host acted on
     * (kept in its store), if any. A call stamped no later may be one of those: the cache that saw
     * it is gone.
     */
    takenBefore?: (deviceId: string) => number | undefined;
    /** The X25519 this program chose at start; tweetnacl's unless given. */
    x25519?: X25519;
  },
): Result<OpenedCall> {
  const x25519 = options.x25519 ?? tweetnaclX25519;
  const shape = checkCallShape(message);
  if (!shape.ok) return shape;
  const header = message.subarray(0, HEADER_BYTES);
  const deviceId = toBase64Url(message.subarray(2, 2 + DEVICE_ID_BYTES));
  const ephemeral = message.subarray(2 + DEVICE_ID_BYTES, 2 + DEVICE_ID_BYTES + KEY_BYTES);
  const nonce = message.subarray(HEADER_BYTES - 24, HEADER_BYTES);
  // The device first: an unknown one costs no X25519 work (ids are random: nothing to probe).
  const devicePublicKey = options.lookupDevice(deviceId);
  if (!devicePublicKey) return fail('handshake-failed', 'call refused');
  const ss = boxBefore(x25519, devicePublicKey, options.hostKeys.secretKey);
  const es = sharedSecret(options.hostKeys.secretKey, ephemeral, x25519);
  const keys = es ? deriveCallKeys(ss, es, header) : undefined;
  const plain = keys && nacl.secretbox.open(message.subarray(HEADER_BYTES), nonce, keys.request);
  if (!keys || !plain) return fail('handshake-failed', 'call refused');
  const timestamp = readUint64(plain, 0);
  const windowMs = options.windowMs ?? HANDSHAKE_CLOCK_WINDOW_MS;
  if (timestamp === undefined || Math.abs(options.clock.now() - timestamp) > windowMs) {
    return fail('handshake-stale', 'call timestamp is outside the accepted window: check the clocks');
  }
  if (options.notBefore !== undefined && timestamp < options.notBefore) {
    return fail('handshake-stale', 'the call was made before the host started; make it again');
  }
  const newestTaken = options.takenBefore?.(deviceId);
  if (newestTaken !== undefined && timestamp <= newestTaken) {
    return fail('handshake-replayed', 'the host took this call, or a later one, before it restarted');
  }
  const verdict = options.replay.check(toBase64Url(nacl.hash(header).subarray(0, 32)), deviceId);
  if (verdict === 'replayed') return fail('handshake-replayed', 'this call was already made');
  if (verdict === 'full') return fail('busy', 'too many calls at once; try again shortly');
  return ok({ deviceId, body: plain.subarray(8), replyKey: keys.reply, stampedAt: timestamp });
}

export function sealCallReply(replyKey: Uint8Array, body: Uint8Array, random: RandomBytes): Uint8Array {
  const nonce = random(24);
  return concatBytes(Uint8Array.of(MessageKind.CallReply), nonce, nacl.secretbox(body, nonce, replyKey));
}

export function openCallReply(message: Uint8Array, replyKey: Uint8Array): Result<Uint8Array> {
  if (message.length < 25 + nacl.secretbox.overheadLength || message[0] !== MessageKind.CallReply) {
    return fail('frame-malformed', 'not a call reply');
  }
  const plain = nacl.secretbox.open(message.subarray(25), message.subarray(1, 25), replyKey);
  return plain ? ok(plain) : fail('frame-tampered', 'call reply failed authentication');
}
