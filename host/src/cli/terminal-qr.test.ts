import jsqr from 'jsqr';
import { describe, expect, it } from 'vitest';
import { parsePlainQr, terminalQr } from './terminal-qr.js';

// jsqr is a CommonJS bundle whose types describe an ES default export: take `.default`.
const jsQR = jsqr.default;

/** Renders modules into an RGBA image with `scale` pixels per module and decodes it. */
function decode(modules: boolean[][], scale = 4): string | undefined {
  const size = modules[0]!.length;
  const width = size * scale;
  const height = modules.length * scale;
  const pixels = new Uint8ClampedArray(width * height * 4).fill(255);
  modules.forEach((row, y) =>
    row.forEach((on, x) => {
      if (!on) return;
      for (let dy = 0; dy < scale; dy++)
        for (let dx = 0; dx < scale; dx++) {
          const i = ((y * scale + dy) * width + x * scale + dx) * 4;
          pixels[i] = pixels[i + 1] = pixels[i + 2] = 0;
        }
    }),
  );
  return jsQR(pixels, width, height)?.data;
}

describe('terminal QR', () => {
  const link =
    'http://192.168.1.20:7420/#pair=1.q3Xw9pLzR0a8mN2bC4dE6gq3Xw9pLzR0a8mN2bC4dE6g4.AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';

  it('scans back to the link', () => {
    expect(decode(parsePlainQr(terminalQr(link, false)))).toBe(link);
  });

  it('forces dark-on-light colours for terminals', () => {
    const coloured = terminalQr(link, true);
    expect(coloured).toContain('\x1b[48;5;231m');
    expect(coloured).toContain('\x1b[38;5;16m');
    expect(coloured.split('\n').every((line) => line === '' || line.endsWith('\x1b[0m'))).toBe(true);
  });
});
