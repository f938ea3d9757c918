import nacl from 'tweetnacl';
import type { Clock } from './clock.js';
import { concatBytes, fromBase64UrlExact, readUint64, toBase64Url, utf8Encode, writeUint64 } from './encoding.js';
import type { Result } from './errors.js';
import { BugError, fail, ok } from './errors.js';
import type { DeviceKey } from './device-key.js';
import { staticBoxKey } from './device-key.js';
import type { BoxKeyPair } from './identity.js';
import { DEVICE_ID_BYTES, KEY_BYTES } from './key-sizes.js';
import { HANDSHAKE_CLOCK_WINDOW_MS } from './limits.js';
import type { RandomBytes } from './random.js';
import type { ReplayCache } from './replay-cache.js';
import { PROTOCOL_VERSION } from './version.js';
import { MessageKind } from './wire.js';
import { BOX_OVERHEAD } from './frame-sizes.js';
import type { X25519 } from './x25519.js';
import { boxBefore, tweetnaclX25519 } from './x25519.js';

/**
 * The handshake that opens every connection (docs/protocol.md, "Handshake").
 *
 *   hello   = 0x01 | version | deviceId(16) | nonce(24) | box_{Sd→Sh}(Ed(32) | timestamp(8))
 *   welcome = 0x02 | version | nonce(24) | box_{Sh→Sd}(Eh(32) | H(hello)[0..32])
 *
 * Both static keys authenticate (only the device can make the hello box, only the host the
 * welcome box); the session keys come from the ephemeral–ephemeral secret, so a static key stolen
 * later opens no recorded traffic. Keys are hashed with the whole transcript, binding them to
 * these two messages.
 *
 * `ss` is the static–static box key (`nacl.box.before`), computed once per side and used for
 * both boxes and the key derivation: three X25519 operations per side in all.
 */

export const HELLO_BYTES = 2 + DEVICE_ID_BYTES + 24 + BOX_OVERHEAD + KEY_BYTES + 8;
export const WELCOME_BYTES = 2 + 24 + BOX_OVERHEAD + KEY_BYTES + 32;

export interface SessionKeys {
  /** Seals what this side sends. */
  send: Uint8Array;
  /** Opens what this side receives. */
  receive: Uint8Array;
}

const KEY_LABEL = utf8Encode('tether/1 session keys');

/** Both directions' keys: SHA-512(label | ee | ss | SHA-512(hello | welcome)), split in halves. */
function deriveKeys(ee: Uint8Array, ss: Uint8Array, hello: Uint8Array, welcome: Uint8Array) {
  const transcript = nacl.hash(concatBytes(hello, welcome));
  // ss enters as the box key (HSalsa20 of the X25519 output), which both sides already hold.
  const k = nacl.hash(concatBytes(KEY_LABEL, ee, ss, transcript));
  return { deviceToHost: k.slice(0, 32), hostToDevice: k.slice(32, 64) };
}

/** X25519 that refuses an all-zero result (a low-order point from a hostile peer). */
export function sharedSecret(
  secretKey: Uint8Array,
  publicKey: Uint8Array,
  x25519: X25519 = tweetnaclX25519,
): Uint8Array | undefined {
  const s = x25519.scalarMult(secretKey, publicKey);
  let any = 0;
  for (const b of s) any |= b;
  return any === 0 ? undefined : s;
}

export function helloDigest(hello: Uint8Array): Uint8Array {
  return nacl.hash(hello).subarray(0, 32);
}

export interface InitiatorOptions {
  deviceId: string;
  /** The device's key pair, or a static key that only gives the box key (a non-extractable key). */
  deviceKeys: DeviceKey;
  hostBoxPublicKey: Uint8Array;
  clock: Pick<Clock, 'now'>;
  random: RandomBytes;
  /** The X25519 this program chose at start; tweetnacl's unless given. */
  x25519?: X25519;
}

type InitiatorState =
  | { name: 'start' }
  | { name: 'awaiting-welcome'; hello: Uint8Array; ephemeral: BoxKeyPair; ss: Uint8Array }
  | { name: 'done' }
  | { name: 'failed' };

/** The device's side: `hello()`, then `acceptWelcome()` once. */
export class HandshakeInitiator {
  private state: InitiatorState = { name: 'start' };

  constructor(private readonly options: InitiatorOptions) {}

  hello(): Uint8Array {
    if (this.state.name !== 'start') throw new BugError(`hello() in state ${this.state.name}`);
    const { deviceId, deviceKeys, hostBoxPublicKey, clock, random } = this.options;
    const x25519 = this.options.x25519 ?? tweetnaclX25519;
    const id = fromBase64UrlExact(deviceId, DEVICE_ID_BYTES);
    if (!id) throw new BugError('deviceId is not 16 bytes of base64url');
    const ephemeral = x25519.keyPair(random);
    const nonce = random(nacl.box.nonceLength);
    const ss = staticBoxKey(deviceKeys, hostBoxPublicKey, x25519.scalarMult);
    const plain = concatBytes(ephemeral.publicKey, writeUint64(clock.now()));
    const box = nacl.box.after(plain, nonce, ss);
    const hello = concatBytes(Uint8Array.of(MessageKind.Hello, PROTOCOL_VERSION), id, nonce, box);
    this.state = { name: 'awaiting-welcome', hello, ephemeral, ss };
    return hello;
  }

  acceptWelcome(welcome: Uint8Array): Result<SessionKeys> {
    const state = this.state;
    if (state.name !== 'awaiting-welcome') throw new BugError(`acceptWelcome() in state ${state.name}`);
    this.state = { name: 'failed' };
    if (welcome.length < 2 || welcome[0] !== MessageKind.Welcome) {
      return fail('handshake-malformed', 'expected a welcome message');
    }
    if (welcome[1] !== PROTOCOL_VERSION) {
      return fail('version-unsupported', `host speaks protocol ${welcome[1]}; this client speaks ${PROTOCOL_VERSION}`);
    }
    if (welcome.length !== WELCOME_BYTES) return fail('handshake-malformed', 'welcome has the wrong length');
    const plain = nacl.box.open.after(welcome.subarray(26), welcome.subarray(2, 26), state.ss);
    if (!plain) return fail('handshake-failed', 'welcome does not open with the host key');
    const hostEphemeral = plain.subarray(0, KEY_BYTES);
    const boundTo = plain.subarray(KEY_BYTES);
    if (!nacl.verify(boundTo, helloDigest(state.hello))) {
      return fail('handshake-failed', 'welcome answers a different hello');
    }
    const ee = sharedSecret(state.ephemeral.secretKey, hostEphemeral, this.options.x25519);
    if (!ee) return fail('handshake-failed', 'weak key in welcome');
    const keys = deriveKeys(ee, state.ss, state.hello, welcome);
    this.state = { name: 'done' };
    return ok({ send: keys.deviceToHost, receive: keys.hostToDevice });
  }
}

export interface ResponderOptions {
  hostKeys: BoxKeyPair;
  /** The device's static public key, or undefined when unknown or revoked (the two look alike). */
  lookupDevice: (deviceId: string) => Uint8Array | undefined;
  clock: Pick<Clock, 'now'>;
  random: RandomBytes;
  replay: ReplayCache;
  windowMs?: number;
  /** The X25519 this program chose at start; tweetnacl's unless given. */
  x25519?: X25519;
}

export interface AcceptedHello {
  deviceId: string;
  welcome: Uint8Array;
  keys: SessionKeys;
}

/** Reads the device id of a hello without opening it; undefined when it is not a hello. */
export function peekHelloDeviceId(hello: Uint8Array): string | undefined {
  if (hello.length !== HELLO_BYTES || hello[0] !== MessageKind.Hello) return undefined;
  return toBase64Url(hello.subarray(2, 2 + DEVICE_ID_BYTES));
}

/** The host's side: one `acceptHello()` per connection. */
export class HandshakeResponder {
  private used = false;

  constructor(private readonly options: ResponderOptions) {}

  acceptHello(hello: Uint8Array): Result<AcceptedHello> {
    if (this.used) throw new BugError('acceptHello() called twice');
    this.used = true;
    const { hostKeys, lookupDevice, clock, random, replay } = this.options;
    const x25519 = this.options.x25519 ?? tweetnaclX25519;
    const windowMs = this.options.windowMs ?? HANDSHAKE_CLOCK_WINDOW_MS;
    if (hello.length < 2 || hello[0] !== MessageKind.Hello)
      return fail('handshake-malformed', 'expected a hello message');
    if (hello[1] !== PROTOCOL_VERSION) {
      return fail('version-unsupported', `client speaks protocol ${hello[1]}; this host speaks ${PROTOCOL_VERSION}`);
    }
    if (hello.length !== HELLO_BYTES) return fail('handshake-malformed', 'hello has the wrong length');
    const deviceId = toBase64Url(hello.subarray(2, 2 + DEVICE_ID_BYTES));
    const devicePublicKey = lookupDevice(deviceId);
    const nonce = hello.subarray(2 + DEVICE_ID_BYTES, 2 + DEVICE_ID_BYTES + 24);
    const ss = devicePublicKey && boxBefore(x25519, devicePublicKey, hostKeys.secretKey);
    const plain = ss && nacl.box.open.after(hello.subarray(2 + DEVICE_ID_BYTES + 24), nonce, ss);
    // Unknown device and a box that does not open give the same answer: no probing for ids.
    if (!ss || !plain) return fail('handshake-failed', 'handshake refused');
    const timestamp = readUint64(plain, KEY_BYTES);
    if (timestamp === undefined || Math.abs(clock.now() - timestamp) > windowMs) {
      return fail('handshake-stale', 'handshake timestamp is outside the accepted window: check the clocks');
    }
    const verdict = replay.check(toBase64Url(helloDigest(hello)), deviceId);
    if (verdict === 'replayed') return fail('handshake-replayed', 'this hello was already used');
    if (verdict === 'full') return fail('busy', 'too many handshakes at once; try again shortly');
    const deviceEphemeral = plain.subarray(0, KEY_BYTES);
    const ephemeral = x25519.keyPair(random);
    const ee = sharedSecret(ephemeral.secretKey, deviceEphemeral, x25519);
    if (!ee) return fail('handshake-failed', 'handshake refused');
    const welcomeNonce = random(nacl.box.nonceLength);
    const box = nacl.box.after(concatBytes(ephemeral.publicKey, helloDigest(hello)), welcomeNonce, ss);
    const welcome = concatBytes(Uint8Array.of(MessageKind.Welcome, PROTOCOL_VERSION), welcomeNonce, box);
    const keys = deriveKeys(ee, ss, hello, welcome);
    return ok({ deviceId, welcome, keys: { send: keys.hostToDevice, receive: keys.deviceToHost } });
  }
}
