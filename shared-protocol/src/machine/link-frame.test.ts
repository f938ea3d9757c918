import { describe, expect, it } from 'vitest';
import { utf8Decode, utf8Encode } from '../encoding.js';
import { seededRandom } from '../testing/seeded-random.js';
import type { LinkAead } from './link-aead.js';
import { checkLinkAead, typescriptLinkAead } from './link-aead.js';
import type { LinkDirectionKeys } from './link-frame.js';
import { LINK_FRAME_HEADER_BYTES, LINK_FRAME_OVERHEAD, LinkFrameOpener, LinkFrameSealer } from './link-frame.js';

const random = seededRandom('machine link frames');
const direction = (): LinkDirectionKeys => ({ key: random(32), iv: random(12) });
const CAP = 1024;

function sealAll(sealer: LinkFrameSealer, ...texts: string[]): Uint8Array[] {
  return texts.map((text) => {
    const frame = sealer.seal(utf8Encode(text));
    if (!frame.ok) throw new Error(frame.error.code);
    return frame.value;
  });
}

const code = (opener: LinkFrameOpener, frame: Uint8Array) => {
  const result = opener.open(frame);
  return result.ok ? 'ok' : result.error.code;
};

/** The framing with an AEAD; OpenSSL's is checked against this one in node-link-aead.test.ts. */
function describeLinkFrames(aead: LinkAead): void {
  const pair = (keys = direction()) => ({
    keys,
    sealer: new LinkFrameSealer(aead, keys, CAP),
    opener: new LinkFrameOpener(aead, keys, CAP),
  });

  describe(`machine link frames (${aead.name})`, () => {
    it('refuses a flipped bit anywhere in a frame, header included', () => {
      const { keys, sealer } = pair();
      const [frame] = sealAll(sealer, 'exec rm -rf build');
      const taken: string[] = [];
      for (let bit = 0; bit < frame!.length * 8; bit++) {
        const mutated = frame!.slice();
        mutated[bit >> 3]! ^= 1 << (bit & 7);
        const got = code(new LinkFrameOpener(aead, keys, CAP), mutated);
        if (got === 'ok') taken.push(`bit ${bit}`);
      }
      expect(taken).toEqual([]);
      // A changed counter, key tag or kind is named for what it is; a changed body is tampered.
      const body = frame!.slice();
      body[LINK_FRAME_HEADER_BYTES]! ^= 1;
      expect(code(new LinkFrameOpener(aead, keys, CAP), body)).toBe('frame-tampered');
      const tagBit = frame!.slice();
      tagBit[frame!.length - 1]! ^= 0x80;
      expect(code(new LinkFrameOpener(aead, keys, CAP), tagBit)).toBe('frame-tampered');
    });

    it('refuses a replayed frame and a reordered one, and stays closed after', () => {
      const { keys, sealer } = pair();
      const [f0, f1, f2] = sealAll(sealer, 'zero', 'one', 'two');
      const replay = new LinkFrameOpener(aead, keys, CAP);
      expect(code(replay, f0!)).toBe('ok');
      expect(code(replay, f0!)).toBe('frame-replayed');
      expect(code(replay, f1!)).toBe('channel-closed');
      expect(code(new LinkFrameOpener(aead, keys, CAP), f1!)).toBe('frame-reordered');
      const skip = new LinkFrameOpener(aead, keys, CAP);
      expect(code(skip, f0!)).toBe('ok');
      expect(code(skip, f2!)).toBe('frame-reordered');
    });

    it('refuses a frame whose counter was rewritten to the expected one', () => {
      const { keys, sealer } = pair();
      const [, f1] = sealAll(sealer, 'zero', 'one');
      const rewritten = f1!.slice();
      rewritten.fill(0, 5, LINK_FRAME_HEADER_BYTES);
      expect(code(new LinkFrameOpener(aead, keys, CAP), rewritten)).toBe('frame-tampered');
    });

    it('refuses a frame under another key, and one under the right key with another iv', () => {
      const { keys, sealer } = pair();
      const [f0] = sealAll(sealer, 'zero');
      expect(code(new LinkFrameOpener(aead, direction(), CAP), f0!)).toBe('frame-wrong-key');
      const otherIv = { key: keys.key, iv: random(12) };
      expect(code(new LinkFrameOpener(aead, otherIv, CAP), f0!)).toBe('frame-tampered');
    });

    it('keeps directions apart: a frame reflected back to its sender does not open', () => {
      const toHost = direction();
      const toMachine = direction();
      const [f0] = sealAll(new LinkFrameSealer(aead, toHost, CAP), 'zero');
      expect(code(new LinkFrameOpener(aead, toMachine, CAP), f0!)).toBe('frame-wrong-key');
    });

    it('round-trips in order, empty and full-size frames included', () => {
      const { sealer, opener } = pair();
      const texts = ['', 'one', 'x'.repeat(CAP), 'three'];
      for (const frame of sealAll(sealer, ...texts)) {
        const opened = opener.open(frame);
        if (!opened.ok) throw new Error(opened.error.code);
        expect(utf8Decode(opened.value)).toBe(texts.shift());
      }
      expect(opener.received).toBe(4);
      expect(sealer.sent).toBe(4);
    });

    it('never seals the same bytes twice: each frame has its own nonce', () => {
      const { sealer } = pair();
      const [a, b] = sealAll(sealer, 'same', 'same');
      expect(a!.subarray(LINK_FRAME_HEADER_BYTES)).not.toEqual(b!.subarray(LINK_FRAME_HEADER_BYTES));
    });

    it('refuses oversized, short and foreign frames with stable codes', () => {
      const { keys, sealer } = pair();
      expect(sealer.seal(new Uint8Array(CAP + 1)).ok).toBe(false);
      const big = new LinkFrameSealer(aead, keys, CAP + 1).seal(new Uint8Array(CAP + 1));
      if (!big.ok) throw new Error(big.error.code);
      expect(code(new LinkFrameOpener(aead, keys, CAP), big.value)).toBe('frame-too-large');
      expect(code(new LinkFrameOpener(aead, keys, CAP), new Uint8Array(LINK_FRAME_OVERHEAD - 1))).toBe(
        'frame-malformed',
      );
      const [f0] = sealAll(sealer, 'zero');
      const device = f0!.slice();
      device[0] = 0x03;
      expect(code(new LinkFrameOpener(aead, keys, CAP), device)).toBe('frame-malformed');
      expect(code(new LinkFrameOpener(aead, keys, CAP), new Uint8Array(0))).toBe('frame-malformed');
    });
  });
}

describe('the TypeScript ChaCha20-Poly1305', () => {
  it('gives RFC 8439 §2.8.2 answer and refuses a flipped bit', () => {
    expect(checkLinkAead(typescriptLinkAead)).toBe(true);
  });

  it('is refused by the check when it differs', () => {
    const broken: LinkAead = {
      name: 'broken',
      key: (raw) => {
        const key = typescriptLinkAead.key(raw);
        return { ...key, open: (nonce, aad, sealed) => key.open(nonce, aad, sealed) ?? new Uint8Array(0) };
      },
    };
    expect(checkLinkAead(broken)).toBe(false);
  });
});

describeLinkFrames(typescriptLinkAead);
