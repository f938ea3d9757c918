import fc from 'fast-check';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { utf8Encode } from './encoding.js';
import { BOX_OVERHEAD, FRAME_OVERHEAD, FrameOpener, FrameSealer, keyTag } from './sealed-frame.js';
import { bitFlips } from './testing/mutations.js';
import { seededRandom } from './testing/seeded-random.js';

const random = seededRandom('frames');
const key = random(32);

function sealAll(sealer: FrameSealer, ...texts: string[]): Uint8Array[] {
  return texts.map((t) => {
    const r = sealer.seal(utf8Encode(t));
    if (!r.ok) throw new Error(r.error.code);
    return r.value;
  });
}

describe('sealed frames', () => {
  it('know the tag size without asking tweetnacl, and agree with it', () => {
    expect(BOX_OVERHEAD).toBe(nacl.secretbox.overheadLength);
    expect(BOX_OVERHEAD).toBe(nacl.box.overheadLength);
  });

  it('open in order with the right key', () => {
    const sealer = new FrameSealer(key);
    const opener = new FrameOpener(key);
    for (const frame of sealAll(sealer, 'a', 'bb', '')) expect(opener.open(frame).ok).toBe(true);
    expect(opener.received).toBe(3);
  });

  it('is the same frame nacl.secretbox makes behind the header, and opening leaves its input as it was', () => {
    const sealer = new FrameSealer(key);
    const opener = new FrameOpener(key);
    const plaintext = random(1024);
    const sealed = sealer.seal(plaintext);
    if (!sealed.ok) throw new Error(sealed.error.code);
    const frame = sealed.value;
    const nonce = new Uint8Array(24);
    expect([...frame.subarray(0, 13)]).toEqual([0x03, ...keyTag(key), 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(frame.subarray(13)).toEqual(nacl.secretbox(plaintext, nonce, key));
    const before = frame.slice();
    const opened = opener.open(frame);
    expect(opened.ok && opened.value).toEqual(plaintext);
    expect(frame).toEqual(before);
    expect(plaintext).toEqual(plaintext.slice());
  });

  it('round-trips any payload', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 10 }), (payloads) => {
        const sealer = new FrameSealer(key);
        const opener = new FrameOpener(key);
        for (const p of payloads) {
          const frame = sealer.seal(p);
          expect(frame.ok && frame.value.length).toBe(p.length + FRAME_OVERHEAD);
          const opened = frame.ok ? opener.open(frame.value) : undefined;
          expect(opened?.ok && opened.value).toEqual(p);
        }
      }),
    );
  });

  it('refuses every single-bit flip', () => {
    const [frame] = sealAll(new FrameSealer(key), 'approve rm -rf build');
    for (const { index, mutated } of bitFlips(frame!)) {
      const result = new FrameOpener(key).open(mutated);
      expect(result.ok, `flip at byte ${index}`).toBe(false);
    }
  });

  it('names what is wrong: tampered, wrong key, replayed, reordered, oversized, malformed', () => {
    const sealer = new FrameSealer(key);
    const [f0, f1, f2] = sealAll(sealer, 'zero', 'one', 'two');
    const code = (opener: FrameOpener, frame: Uint8Array) => {
      const r = opener.open(frame);
      return r.ok ? 'ok' : r.error.code;
    };

    const tampered = f0!.slice();
    tampered[tampered.length - 1]! ^= 1;
    expect(code(new FrameOpener(key), tampered)).toBe('frame-tampered');
    expect(code(new FrameOpener(random(32)), f0!)).toBe('frame-wrong-key');

    const replay = new FrameOpener(key);
    expect(code(replay, f0!)).toBe('ok');
    expect(code(replay, f0!)).toBe('frame-replayed');

    expect(code(new FrameOpener(key), f1!)).toBe('frame-reordered');
    const skip = new FrameOpener(key);
    expect(code(skip, f0!)).toBe('ok');
    expect(code(skip, f2!)).toBe('frame-reordered');

    expect(code(new FrameOpener(key, 4), f0!)).toBe('ok');
    expect(code(new FrameOpener(key, 3), f0!)).toBe('frame-too-large');
    expect(new FrameSealer(key, 3).seal(utf8Encode('four')).ok).toBe(false);

    expect(code(new FrameOpener(key), Uint8Array.of(3, 1, 2))).toBe('frame-malformed');
    expect(code(new FrameOpener(key), new Uint8Array(0))).toBe('frame-malformed');
  });

  it('closes for good after the first refusal', () => {
    const [f0, f1] = sealAll(new FrameSealer(key), 'zero', 'one');
    const opener = new FrameOpener(key);
    const bad = f0!.slice();
    bad[20]! ^= 4;
    expect(opener.open(bad).ok).toBe(false);
    const after = opener.open(f0!);
    expect(!after.ok && after.error.code).toBe('channel-closed');
    expect(opener.open(f1!).ok).toBe(false);
    expect(opener.isClosed).toBe(true);
  });

  it('uses distinct nonces per frame (same plaintext, different bytes)', () => {
    const [a, b] = sealAll(new FrameSealer(key), 'same', 'same');
    expect(a).not.toEqual(b);
  });

  it('lays frames out as documented: kind | key tag | counter | secretbox under a counter nonce', () => {
    const sealer = new FrameSealer(key);
    sealAll(sealer, 'first');
    const [frame] = sealAll(sealer, 'second');
    const nonce = new Uint8Array(24);
    nonce[23] = 1;
    const expected = new Uint8Array([
      3,
      ...keyTag(key),
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      ...nacl.secretbox(utf8Encode('second'), nonce, key),
    ]);
    expect(frame).toEqual(expected);
  });
});
