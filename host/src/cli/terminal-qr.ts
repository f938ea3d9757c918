import { encode } from 'uqr';

const RESET = '\x1b[0m';
/** 256-colour white and black, set explicitly: a QR code must be dark on light whatever the
 * terminal's theme, or phone cameras will not read it. */
const WHITE = 231;
const BLACK = 16;

/**
 * A QR code for a terminal, two modules per character cell (upper half block, foreground for the
 * top module, background for the bottom one), with a 2-module quiet zone. Without colours (not a
 * TTY), plain half blocks with dark modules drawn.
 */
export function terminalQr(text: string, colour: boolean): string {
  const qr = encode(text, { ecc: 'L', border: 2 });
  const rows = qr.data;
  const size = rows.length;
  const dark = (y: number, x: number) => y < size && (rows[y]?.[x] ?? false);
  const lines: string[] = [];
  for (let y = 0; y < size; y += 2) {
    let line = '';
    let last = '';
    for (let x = 0; x < size; x++) {
      const top = dark(y, x);
      const bottom = dark(y + 1, x);
      if (colour) {
        const style = `\x1b[38;5;${top ? BLACK : WHITE}m\x1b[48;5;${bottom ? BLACK : WHITE}m`;
        line += (style === last ? '' : style) + '▀';
        last = style;
      } else {
        line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
      }
    }
    lines.push(colour ? `${line}${RESET}` : line);
  }
  return `${lines.join('\n')}\n`;
}

/** The module matrix back from the plain rendering (tests decode it to check it scans). */
export function parsePlainQr(rendered: string): boolean[][] {
  const rows: boolean[][] = [];
  for (const line of rendered.replace(/\n$/, '').split('\n')) {
    const chars = [...line];
    rows.push(chars.map((c) => c === '█' || c === '▀'));
    rows.push(chars.map((c) => c === '█' || c === '▄'));
  }
  return rows;
}
