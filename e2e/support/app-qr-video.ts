import { writeFileSync } from 'node:fs';
import { encode } from 'uqr';

/** Fake camera frame size (px); even, as YUV 4:2:0 needs. */
const WIDTH = 640;
const HEIGHT = 480;
/** Blank modules around the code, as the QR standard asks (4). */
const QUIET_ZONE = 4;

/**
 * Writes a one-frame Y4M video (YUV 4:2:0) showing `text` as a QR code, black on white, for
 * Chromium's fake camera (`--use-file-for-fake-video-capture`). Plain Node: no ffmpeg.
 */
export function writeQrVideo(text: string, file: string): void {
  const { data } = encode(text, { ecc: 'M', border: 0 });
  const modules = data.length + 2 * QUIET_ZONE;
  const scale = Math.floor((Math.min(WIDTH, HEIGHT) * 0.95) / modules);
  if (scale < 2) throw new Error(`the QR code for ${text.length} characters is too dense for ${WIDTH}×${HEIGHT}`);
  const left = Math.floor((WIDTH - data.length * scale) / 2);
  const top = Math.floor((HEIGHT - data.length * scale) / 2);
  const luma = new Uint8Array(WIDTH * HEIGHT).fill(255);
  for (let y = 0; y < data.length; y++) {
    for (let x = 0; x < data.length; x++) {
      if (!data[y]![x]) continue;
      for (let dy = 0; dy < scale; dy++)
        luma.fill(
          0,
          (top + y * scale + dy) * WIDTH + left + x * scale,
          (top + y * scale + dy) * WIDTH + left + (x + 1) * scale,
        );
    }
  }
  // Grey chroma (128): no colour at all.
  const chroma = new Uint8Array((WIDTH / 2) * (HEIGHT / 2)).fill(128);
  const header = Buffer.from(`YUV4MPEG2 W${WIDTH} H${HEIGHT} F15:1 Ip A1:1 C420jpeg\n`);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma, chroma]);
  writeFileSync(file, Buffer.concat([header, frame, frame]));
}
