import { describe, expect, it } from 'vitest';
import vectorsFile from '../../test-vectors/machine-link.json' with { type: 'json' };
import { generateBoxKeyPair } from '../identity.js';
import { checkMachineLinkVectors } from '../testing/machine-link-vectors.js';
import { seededRandom } from '../testing/seeded-random.js';
import {
  MACHINE_HELLO_BYTES,
  MACHINE_LINK_VERSION,
  MACHINE_WELCOME_BYTES,
  MachineLinkInitiator,
  acceptMachineHello,
} from './link-handshake.js';
import { typescriptLinkAead } from './link-aead.js';
import { LinkFrameOpener, LinkFrameSealer } from './link-frame.js';

function setup(seed = 'machine handshake') {
  const random = seededRandom(seed);
  const host = generateBoxKeyPair(random);
  const initiator = new MachineLinkInitiator(random);
  const hello = initiator.hello();
  return { random, host, initiator, hello };
}

describe('machine link handshake', () => {
  it('derives matching keys and proves the host key', () => {
    const s = setup();
    expect(s.hello).toHaveLength(MACHINE_HELLO_BYTES);
    const accepted = acceptMachineHello(s.hello, s.host, s.random);
    if (!accepted.ok) throw new Error(accepted.error.code);
    expect(accepted.value.welcome).toHaveLength(MACHINE_WELCOME_BYTES);
    const welcomed = s.initiator.acceptWelcome(accepted.value.welcome);
    if (!welcomed.ok) throw new Error(welcomed.error.code);
    expect(welcomed.value.hostKey).toEqual(s.host.publicKey);
    const { keys } = welcomed.value;
    expect(keys.send).toEqual(accepted.value.keys.receive);
    expect(keys.receive).toEqual(accepted.value.keys.send);
    // Directions apart: neither the key nor the iv of one is the other's.
    expect(keys.send.key).not.toEqual(keys.receive.key);
    expect(keys.send.iv).not.toEqual(keys.receive.iv);
    expect([keys.send.key.length, keys.send.iv.length]).toEqual([32, 12]);
    const frame = new LinkFrameSealer(typescriptLinkAead, keys.send, 64).seal(Uint8Array.of(7));
    const opener = new LinkFrameOpener(typescriptLinkAead, accepted.value.keys.receive, 64);
    expect(frame.ok && opener.open(frame.value).ok).toBe(true);
    const reflected = new LinkFrameOpener(typescriptLinkAead, keys.receive, 64);
    expect(frame.ok && reflected.open(frame.value).ok).toBe(false);
  });

  it('refuses a welcome from someone who names the host key without holding it', () => {
    const s = setup();
    const impostor = generateBoxKeyPair(s.random);
    const forged = acceptMachineHello(s.hello, impostor, s.random);
    if (!forged.ok) throw new Error(forged.error.code);
    // Swap in the real host's public key: the proof was made with the impostor's secret.
    const welcome = forged.value.welcome.slice();
    welcome.set(s.host.publicKey, 2 + 32);
    const result = s.initiator.acceptWelcome(welcome);
    expect(result.ok ? 'ok' : result.error.code).toBe('handshake-failed');
  });

  it('refuses a flipped bit anywhere in the welcome', () => {
    const s = setup();
    const accepted = acceptMachineHello(s.hello, s.host, s.random);
    if (!accepted.ok) throw new Error(accepted.error.code);
    const welcome = accepted.value.welcome;
    const taken: number[] = [];
    for (let index = 0; index < welcome.length; index++) {
      const mutated = welcome.slice();
      mutated[index]! ^= 1 << (index % 8);
      // The same seed gives the same machine state: its ephemeral key, hence its hello.
      const r = seededRandom('machine handshake');
      generateBoxKeyPair(r);
      const machine = new MachineLinkInitiator(r);
      expect(machine.hello()).toEqual(s.hello);
      if (machine.acceptWelcome(mutated).ok) taken.push(index);
    }
    expect(taken).toEqual([]);
  });

  it('refuses a version 1 peer on either side, never falling back to its framing', () => {
    expect(MACHINE_LINK_VERSION).toBe(2);
    const s = setup();
    const old = s.hello.slice();
    old[1] = 1;
    const host = acceptMachineHello(old, s.host, s.random);
    expect(host.ok ? 'ok' : host.error).toEqual({
      code: 'version-unsupported',
      message: 'the machine speaks machine-link version 1; this host speaks 2',
    });
    const accepted = acceptMachineHello(s.hello, s.host, s.random);
    if (!accepted.ok) throw new Error('setup');
    const oldWelcome = accepted.value.welcome.slice();
    oldWelcome[1] = 1;
    const machine = s.initiator.acceptWelcome(oldWelcome);
    expect(machine.ok ? 'ok' : machine.error).toEqual({
      code: 'version-unsupported',
      message: 'the host speaks machine-link version 1; this machine speaks 2',
    });
  });

  it('refuses other versions, lengths and kinds on both sides with stable codes', () => {
    const s = setup();
    const wrongVersion = s.hello.slice();
    wrongVersion[1] = MACHINE_LINK_VERSION + 1;
    const v = acceptMachineHello(wrongVersion, s.host, s.random);
    expect(v.ok ? 'ok' : v.error.code).toBe('version-unsupported');
    expect(v.ok ? '' : v.error.message).toContain(`speaks machine-link version ${MACHINE_LINK_VERSION + 1}`);
    const short = acceptMachineHello(s.hello.subarray(0, 20), s.host, s.random);
    expect(short.ok ? 'ok' : short.error.code).toBe('handshake-malformed');
    const deviceHello = s.hello.slice();
    deviceHello[0] = 0x01;
    const kind = acceptMachineHello(deviceHello, s.host, s.random);
    expect(kind.ok ? 'ok' : kind.error.code).toBe('handshake-malformed');
    const zero = s.hello.slice();
    zero.fill(0, 2);
    const weak = acceptMachineHello(zero, s.host, s.random);
    expect(weak.ok ? 'ok' : weak.error.code).toBe('handshake-failed');
    const welcomeVersion = acceptMachineHello(s.hello, s.host, s.random);
    if (!welcomeVersion.ok) throw new Error('setup');
    const w = welcomeVersion.value.welcome.slice();
    w[1] = 9;
    const r = s.initiator.acceptWelcome(w);
    expect(r.ok ? 'ok' : r.error.code).toBe('version-unsupported');
  });
});

describe('machine link fixed vectors (Node)', () => {
  const vectors = vectorsFile;
  const checks = checkMachineLinkVectors(vectors);
  for (const check of checks) {
    it(check.name, () => expect(check.ok, check.detail).toBe(true));
  }

  it('catch a changed byte', () => {
    const broken = { ...vectors, welcome: vectors.welcome.replace(/.$/, (c) => (c === '0' ? '1' : '0')) };
    expect(checkMachineLinkVectors(broken).some((c) => !c.ok)).toBe(true);
  });
});
