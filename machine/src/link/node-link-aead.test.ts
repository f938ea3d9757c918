import { hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LinkDirectionKeys } from '@tether/shared-protocol';
import {
  LinkFrameOpener,
  LinkFrameSealer,
  checkLinkAead,
  hkdfExpand,
  hkdfExtract,
  typescriptLinkAead,
} from '@tether/shared-protocol';
import { checkMachineLinkVectors, seededRandom } from '@tether/shared-protocol/testing';
import vectors from '@tether/shared-protocol/machine-link-vectors.json' with { type: 'json' };
import { chooseLinkAead, nodeLinkAead } from './node-link-aead.js';

const random = seededRandom('node link aead');
const direction = (): LinkDirectionKeys => ({ key: random(32), iv: random(12) });
const CAP = 4 * 1024 * 1024;

describe('the machine link on OpenSSL', () => {
  it('gives RFC 8439 answers, and is the one chosen', () => {
    expect(checkLinkAead(nodeLinkAead)).toBe(true);
    expect(chooseLinkAead()).toBe(nodeLinkAead);
  });

  it('agrees with the TypeScript reference both ways, at every size the link sends', () => {
    for (const size of [0, 1, 15, 16, 17, 63, 64, 65, 1000, 64 * 1024 + 9, 300_001]) {
      const keys = direction();
      const plain = random(size);
      for (const [from, to] of [
        [nodeLinkAead, typescriptLinkAead],
        [typescriptLinkAead, nodeLinkAead],
      ] as const) {
        const frame = new LinkFrameSealer(from, keys, CAP).seal(plain);
        if (!frame.ok) throw new Error(frame.error.code);
        const opened = new LinkFrameOpener(to, keys, CAP).open(frame.value);
        expect(opened.ok && Buffer.from(opened.value).equals(plain), `${size} bytes ${from.name} → ${to.name}`).toBe(
          true,
        );
      }
    }
  });

  it('seals a plaintext given in parts as the same frame as the joined plaintext', () => {
    const keys = direction();
    const [head, body] = [random(9), random(70_000)];
    const joined = Buffer.concat([head, body]);
    for (const aead of [nodeLinkAead, typescriptLinkAead]) {
      const parts = new LinkFrameSealer(aead, keys, CAP).seal([head, body]);
      const whole = new LinkFrameSealer(nodeLinkAead, keys, CAP).seal(joined);
      expect(parts.ok && whole.ok && Buffer.from(parts.value).equals(whole.value), aead.name).toBe(true);
    }
  });

  it('refuses a tampered, replayed, reordered or foreign frame with the stable codes', () => {
    const keys = direction();
    const sealer = new LinkFrameSealer(nodeLinkAead, keys, CAP);
    const [f0, f1] = [sealer.seal(random(100)), sealer.seal(random(100))].map((f) => (f.ok ? f.value : undefined));
    const code = (opener: LinkFrameOpener, frame: Uint8Array) => {
      const result = opener.open(frame);
      return result.ok ? 'ok' : result.error.code;
    };
    const opener = () => new LinkFrameOpener(nodeLinkAead, keys, CAP);
    for (const at of [0, 13, 60, 112, 128]) {
      const mutated = f0!.slice();
      mutated[at]! ^= 4;
      expect(code(opener(), mutated), `byte ${at}`).not.toBe('ok');
    }
    const body = f0!.slice();
    body[20]! ^= 1;
    expect(code(opener(), body)).toBe('frame-tampered');
    const tag = f0!.slice();
    tag[tag.length - 1]! ^= 1;
    expect(code(opener(), tag)).toBe('frame-tampered');
    const replay = opener();
    expect(code(replay, f0!)).toBe('ok');
    expect(code(replay, f0!)).toBe('frame-replayed');
    expect(code(opener(), f1!)).toBe('frame-reordered');
    expect(code(new LinkFrameOpener(nodeLinkAead, direction(), CAP), f0!)).toBe('frame-wrong-key');
    expect(code(new LinkFrameOpener(nodeLinkAead, { key: keys.key, iv: random(12) }, CAP), f0!)).toBe('frame-tampered');
  });

  it('derives the same keys as OpenSSL’s HKDF-SHA-512', () => {
    const [salt, ikm, info] = [random(64), random(64), random(30)];
    for (const length of [12, 32, 64, 100]) {
      const ours = hkdfExpand(hkdfExtract(salt, ikm), info, length);
      expect(Buffer.from(ours).equals(Buffer.from(hkdfSync('sha512', ikm, salt, info, length)))).toBe(true);
    }
  });

  describe('fixed vectors, sealed by OpenSSL', () => {
    for (const check of checkMachineLinkVectors(vectors, nodeLinkAead)) {
      it(check.name, () => expect(check.ok, check.detail).toBe(true));
    }
  });
});
