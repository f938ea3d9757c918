import nacl from 'tweetnacl';
import { concatBytes, utf8Encode } from '../encoding.js';
import type { Result } from '../errors.js';
import { BugError, fail, ok } from '../errors.js';
import { sharedSecret } from '../handshake.js';
import { hkdfExpand, hkdfExtract } from '../hkdf.js';
import type { BoxKeyPair } from '../identity.js';
import { KEY_BYTES, generateBoxKeyPair } from '../identity.js';
import type { RandomBytes } from '../random.js';
import { LINK_KEY_BYTES, LINK_NONCE_BYTES } from './link-aead.js';
import type { LinkDirectionKeys, LinkKeys } from './link-frame.js';

/**
 * The handshake that opens a machine's link to a host (docs/protocol.md, "Machine link").
 *
 *   hello   = 0x21 | version | Em(32)
 *   welcome = 0x22 | version | Eh(32) | Sh(32) | nonce(24) | secretbox_{Kp}(th[0..32])
 *
 *   ee = X25519(em, Eh) = X25519(eh, Em)      fresh on both sides: forward secrecy
 *   es = X25519(em, Sh) = X25519(sh, Em)      only the holder of the host's static key has it
 *   th = SHA-512(hello | 0x22 | version | Eh | Sh)
 *   Kp = HKDF-Expand(HKDF-Extract(th, ee | es), "tether machine link 2: proof", 32)
 *   prk = HKDF-Extract(SHA-512(hello | welcome), ee | es)
 *   per direction d ("machine to host", "host to machine"):
 *     key_d = HKDF-Expand(prk, "tether machine link 2: <d> key", 32)
 *     iv_d  = HKDF-Expand(prk, "tether machine link 2: <d> iv", 12)
 *
 * HKDF is over HMAC-SHA-512 (hkdf.ts). Frames are then sealed with ChaCha20-Poly1305 under the
 * direction's key, with a counter nonce mixed into its iv (link-frame.ts).
 *
 * Unlike a device, a machine has no key the host knows: the host is authenticated here (the proof
 * box opens only under a key that needs `sh`, and the machine compares `Sh` with the key it pinned),
 * the machine afterwards, by the token in its first sealed message. A hello carries nothing secret
 * and nothing a replay could use: an attacker who replays one cannot derive the keys without `em`.
 */

/**
 * The version both ends of a machine link speak; each refuses any other with `version-unsupported`
 * (a close code the other side reads), never falling back to something else.
 * 1: frames sealed with XSalsa20-Poly1305 (tweetnacl) like a device's, keys split from one hash.
 * 2: frames sealed with ChaCha20-Poly1305 (OpenSSL where there is one), keys and ivs from HKDF.
 */
export const MACHINE_LINK_VERSION = 2;

export const MachineLinkKind = {
  Hello: 0x21,
  Welcome: 0x22,
} as const;

export const MACHINE_HELLO_BYTES = 2 + KEY_BYTES;
export const MACHINE_WELCOME_BYTES = 2 + KEY_BYTES + KEY_BYTES + 24 + nacl.secretbox.overheadLength + 32;

const LABEL = 'tether machine link 2: ';
const PROOF_INFO = utf8Encode(`${LABEL}proof`);
const info = (direction: string, what: 'key' | 'iv') => utf8Encode(`${LABEL}${direction} ${what}`);

function welcomeHead(ephemeral: Uint8Array, hostStatic: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(MachineLinkKind.Welcome, MACHINE_LINK_VERSION), ephemeral, hostStatic);
}

function proofKey(ee: Uint8Array, es: Uint8Array, hello: Uint8Array, head: Uint8Array) {
  const th = nacl.hash(concatBytes(hello, head));
  const prk = hkdfExtract(th, concatBytes(ee, es));
  return { key: hkdfExpand(prk, PROOF_INFO, 32), binding: th.slice(0, 32) };
}

function deriveKeys(ee: Uint8Array, es: Uint8Array, hello: Uint8Array, welcome: Uint8Array) {
  const prk = hkdfExtract(nacl.hash(concatBytes(hello, welcome)), concatBytes(ee, es));
  const direction = (name: string): LinkDirectionKeys => ({
    key: hkdfExpand(prk, info(name, 'key'), LINK_KEY_BYTES),
    iv: hkdfExpand(prk, info(name, 'iv'), LINK_NONCE_BYTES),
  });
  return { machineToHost: direction('machine to host'), hostToMachine: direction('host to machine') };
}

export interface MachineWelcomed {
  keys: LinkKeys;
  /** The host's static box key, proven by the welcome: the caller compares it with its pin. */
  hostKey: Uint8Array;
}

/** The machine's side: `hello()`, then `acceptWelcome()` once. */
export class MachineLinkInitiator {
  private ephemeral: BoxKeyPair | undefined;
  private hello_: Uint8Array | undefined;
  private done = false;

  constructor(private readonly random: RandomBytes) {}

  hello(): Uint8Array {
    if (this.hello_) throw new BugError('hello() called twice');
    this.ephemeral = generateBoxKeyPair(this.random);
    this.hello_ = concatBytes(Uint8Array.of(MachineLinkKind.Hello, MACHINE_LINK_VERSION), this.ephemeral.publicKey);
    return this.hello_;
  }

  acceptWelcome(welcome: Uint8Array): Result<MachineWelcomed> {
    const hello = this.hello_;
    const ephemeral = this.ephemeral;
    if (!hello || !ephemeral || this.done) throw new BugError('acceptWelcome() out of order');
    this.done = true;
    if (welcome.length < 2 || welcome[0] !== MachineLinkKind.Welcome) {
      return fail('handshake-malformed', 'expected a machine-link welcome');
    }
    if (welcome[1] !== MACHINE_LINK_VERSION) {
      return fail(
        'version-unsupported',
        `the host speaks machine-link version ${welcome[1]}; this machine speaks ${MACHINE_LINK_VERSION}`,
      );
    }
    if (welcome.length !== MACHINE_WELCOME_BYTES) return fail('handshake-malformed', 'welcome has the wrong length');
    const hostEphemeral = welcome.slice(2, 2 + KEY_BYTES);
    const hostKey = welcome.slice(2 + KEY_BYTES, 2 + 2 * KEY_BYTES);
    const nonce = welcome.subarray(2 + 2 * KEY_BYTES, 2 + 2 * KEY_BYTES + 24);
    const ee = sharedSecret(ephemeral.secretKey, hostEphemeral);
    const es = sharedSecret(ephemeral.secretKey, hostKey);
    if (!ee || !es) return fail('handshake-failed', 'weak key in welcome');
    const proof = proofKey(ee, es, hello, welcome.subarray(0, 2 + 2 * KEY_BYTES));
    const opened = nacl.secretbox.open(welcome.subarray(2 + 2 * KEY_BYTES + 24), nonce, proof.key);
    if (!opened || !nacl.verify(opened, proof.binding)) {
      return fail('handshake-failed', 'the host did not prove it holds the key it named');
    }
    const keys = deriveKeys(ee, es, hello, welcome);
    return ok({ keys: { send: keys.machineToHost, receive: keys.hostToMachine }, hostKey });
  }
}

/** The host's side: answers one hello with a welcome that proves its static key. */
export function acceptMachineHello(
  hello: Uint8Array,
  hostKeys: BoxKeyPair,
  random: RandomBytes,
): Result<{ welcome: Uint8Array; keys: LinkKeys }> {
  if (hello.length < 2 || hello[0] !== MachineLinkKind.Hello) {
    return fail('handshake-malformed', 'expected a machine-link hello');
  }
  if (hello[1] !== MACHINE_LINK_VERSION) {
    return fail(
      'version-unsupported',
      `the machine speaks machine-link version ${hello[1]}; this host speaks ${MACHINE_LINK_VERSION}`,
    );
  }
  if (hello.length !== MACHINE_HELLO_BYTES) return fail('handshake-malformed', 'hello has the wrong length');
  const machineEphemeral = hello.subarray(2);
  const ephemeral = generateBoxKeyPair(random);
  const ee = sharedSecret(ephemeral.secretKey, machineEphemeral);
  const es = sharedSecret(hostKeys.secretKey, machineEphemeral);
  if (!ee || !es) return fail('handshake-failed', 'weak key in hello');
  const head = welcomeHead(ephemeral.publicKey, hostKeys.publicKey);
  const proof = proofKey(ee, es, hello, head);
  const nonce = random(nacl.secretbox.nonceLength);
  const welcome = concatBytes(head, nonce, nacl.secretbox(proof.binding, nonce, proof.key));
  const keys = deriveKeys(ee, es, hello, welcome);
  return ok({ welcome, keys: { send: keys.hostToMachine, receive: keys.machineToHost } });
}
