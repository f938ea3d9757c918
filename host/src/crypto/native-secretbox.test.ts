import { FrameOpener, FrameSealer, checkSecretbox, tweetnaclSecretbox } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { chooseSecretbox } from './native-secretbox.js';

const key = new Uint8Array(32).fill(9);
const bytes = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i * 7) & 0xff);

describe("the host's secretbox", () => {
  const native = chooseSecretbox();

  it('is libsodium on this machine, and gives the same bytes as tweetnacl', () => {
    expect(native.name).toBe('libsodium');
    expect(checkSecretbox(native)).toBe(true);
  });

  it('seals frames a tweetnacl device opens, and opens what a tweetnacl device sealed', () => {
    const hostSeal = new FrameSealer(key, undefined, native);
    const deviceOpen = new FrameOpener(key, undefined, tweetnaclSecretbox);
    const deviceSeal = new FrameSealer(key, undefined, tweetnaclSecretbox);
    const hostOpen = new FrameOpener(key, undefined, native);
    for (const size of [0, 1, 200, 1024, 32 * 1024]) {
      const plain = bytes(size);
      const down = hostSeal.seal(plain);
      const up = deviceSeal.seal(plain);
      if (!down.ok || !up.ok) throw new Error('seal failed');
      expect(deviceOpen.open(down.value)).toEqual({ ok: true, value: plain });
      expect(hostOpen.open(up.value)).toEqual({ ok: true, value: plain });
    }
  });

  it('refuses a frame with one bit changed, and the opener is spent', () => {
    const frame = new FrameSealer(key, undefined, tweetnaclSecretbox).seal(bytes(100));
    if (!frame.ok) throw new Error('seal failed');
    const tampered = frame.value.slice();
    tampered[tampered.length - 1]! ^= 1;
    const opener = new FrameOpener(key, undefined, native);
    expect(opener.open(tampered)).toMatchObject({ ok: false, error: { code: 'frame-tampered' } });
    expect(opener.open(frame.value)).toMatchObject({ ok: false, error: { code: 'channel-closed' } });
  });

  it('is tweetnacl where libsodium does not load or does not give the same bytes', () => {
    expect(chooseSecretbox(() => undefined).name).toBe('tweetnacl');
    const wrong = {
      crypto_secretbox_easy: (c: Uint8Array) => c.fill(1),
      crypto_secretbox_open_easy: () => true,
    };
    expect(chooseSecretbox(() => wrong).name).toBe('tweetnacl');
    const throws = {
      crypto_secretbox_easy: () => {
        throw new Error('no');
      },
      crypto_secretbox_open_easy: () => false,
    };
    expect(chooseSecretbox(() => throws).name).toBe('tweetnacl');
  });
});
