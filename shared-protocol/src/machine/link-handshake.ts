import nacl from 'tweetnacl';
import { concatBytes, utf8Encode } from '../encoding.js';
import type { Result } from '../errors.js';
import { BugError, fail, ok } from '../errors.js';
import type { SessionKeys } from '../handshake.js';
import { sharedSecret } from '../handshake.js';
import type { BoxKeyPair } from '../identity.js';
import { KEY_BYTES, generateBoxKeyPair } from '../identity.js';
import type { RandomBytes } from '../random.js';

/**
 * The handshake that opens a machine's link to a host (docs/protocol.md, "Machine link").
 *
 *   hello   = 0x21 | version | Em(32)
 *   welcome = 0x22 | version | Eh(32) | Sh(32) | nonce(24) | secretbox_{Kp}(th[0..32])
 *
 *   ee = X25519(em, Eh) = X25519(eh, Em)      fresh on both sides: forward secrecy
 *   es = X25519(em, Sh) = X25519(sh, Em)      only the holder of the host's static key has it
 *   th = SHA-512(hello | 0x22 | version | Eh | Sh)
 *   Kp = SHA-512("tether/1 machine proof" | ee | es | th)[0..32]
 *   keys = SHA-512("tether/1 machine keys" | ee | es | SHA-512(hello | welcome)):
 *          machine → host the first half, host → machine the second
 *
 * Unlike a device, a machine has no key the host knows: the host is authenticated here (the proof
 * box opens only under a key that needs `sh`, and the machine compares `Sh` with the key it pinned),
 * the machine afterwards, by the token in its first sealed message. A hello carries nothing secret
 * and nothing a replay could use: an attacker who replays one cannot derive the keys without `em`.
 */

export const MACHINE_LINK_VERSION = 1;

export const MachineLinkKind = {
  Hello: 0x21,
  Welcome: 0x22,
} as const;

export const MACHINE_HELLO_BYTES = 2 + KEY_BYTES;
export const MACHINE_WELCOME_BYTES = 2 + KEY_BYTES + KEY_BYTES + 24 + nacl.secretbox.overheadLength + 32;

const PROOF_LABEL = utf8Encode('tether/1 machine proof');
const KEY_LABEL = utf8Encode('tether/1 machine keys');

function welcomeHead(ephemeral: Uint8Array, hostStatic: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(MachineLinkKind.Welcome, MACHINE_LINK_VERSION), ephemeral, hostStatic);
}

function proofKey(ee: Uint8Array, es: Uint8Array, hello: Uint8Array, head: Uint8Array) {
  const th = nacl.hash(concatBytes(hello, head));
  return { key: nacl.hash(concatBytes(PROOF_LABEL, ee, es, th)).slice(0, 32), binding: th.slice(0, 32) };
}

function deriveKeys(ee: Uint8Array, es: Uint8Array, hello: Uint8Array, welcome: Uint8Array) {
  const k = nacl.hash(concatBytes(KEY_LABEL, ee, es, nacl.hash(concatBytes(hello, welcome))));
  return { machineToHost: k.slice(0, 32), hostToMachine: k.slice(32, 64) };
}

export interface MachineWelcomed {
  keys: SessionKeys;
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
): Result<{ welcome: Uint8Array; keys: SessionKeys }> {
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
