// Draws the app's icons into PNGs without external tools: `npx tsx pwa/scripts/make-icons.ts`.
// The PNGs are checked in (pwa/public/icons); run this again only when the logo changes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

type Rgb = readonly [number, number, number];

const BLUE: Rgb = [0x1f, 0x6f, 0xeb];
const WHITE: Rgb = [0xff, 0xff, 0xff];
/** Samples per pixel side: 4×4 supersampling gives smooth edges at every size. */
const SUPERSAMPLE = 4;

interface IconSpec {
  file: string;
  size: number;
  /** Corner radius as a fraction of the side; 0 for a full square (iOS and maskable icons). */
  corner: number;
  /** Logo scale: maskable icons keep it inside the central safe circle (80 % of the side). */
  logoScale: number;
  /** iOS shows transparency as black: its icons are opaque. */
  opaque: boolean;
}

const ICONS: IconSpec[] = [
  { file: 'apple-touch-icon-180.png', size: 180, corner: 0, logoScale: 1, opaque: true },
  { file: 'apple-touch-icon-167.png', size: 167, corner: 0, logoScale: 1, opaque: true },
  { file: 'apple-touch-icon-152.png', size: 152, corner: 0, logoScale: 1, opaque: true },
  { file: 'icon-192.png', size: 192, corner: 0.22, logoScale: 1, opaque: false },
  { file: 'icon-512.png', size: 512, corner: 0.22, logoScale: 1, opaque: false },
  { file: 'maskable-512.png', size: 512, corner: 0, logoScale: 0.72, opaque: true },
  { file: 'favicon-32.png', size: 32, corner: 0.22, logoScale: 1.1, opaque: false },
];

/** Signed distance to a rounded square covering [0,1]² (negative inside). */
function roundedSquare(x: number, y: number, r: number): number {
  const qx = Math.abs(x - 0.5) - 0.5 + r;
  const qy = Math.abs(y - 0.5) - 0.5 + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

function segment(x: number, y: number, ax: number, ay: number, bx: number, by: number): number {
  const px = x - ax;
  const py = y - ay;
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, (px * dx + py * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - dx * t, py - dy * t);
}

/** The logo, two nodes tied by a line: is (x, y) (logo coordinates, [0,1]²) on the foreground? */
function onLogo(x: number, y: number): boolean {
  const a = { x: 0.33, y: 0.35, r: 0.11 };
  const b = { x: 0.66, y: 0.66, r: 0.14, ring: 0.055 };
  if (Math.hypot(x - a.x, y - a.y) <= a.r) return true;
  const db = Math.hypot(x - b.x, y - b.y);
  if (db <= b.r && db >= b.r - b.ring) return true;
  return segment(x, y, a.x, a.y, b.x, b.y) <= 0.035 && db > b.r - b.ring / 2;
}

function draw(spec: IconSpec): Uint8Array {
  const { size } = spec;
  const pixels = new Uint8Array(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let inside = 0;
      let logo = 0;
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) {
          const x = (px + (sx + 0.5) / SUPERSAMPLE) / size;
          const y = (py + (sy + 0.5) / SUPERSAMPLE) / size;
          if (spec.corner > 0 && roundedSquare(x, y, spec.corner) > 0) continue;
          inside++;
          const lx = (x - 0.5) / spec.logoScale + 0.5;
          const ly = (y - 0.5) / spec.logoScale + 0.5;
          if (onLogo(lx, ly)) logo++;
        }
      }
      const samples = SUPERSAMPLE * SUPERSAMPLE;
      const mix = inside === 0 ? 0 : logo / inside;
      const offset = (py * size + px) * 4;
      for (let c = 0; c < 3; c++) pixels[offset + c] = Math.round(BLUE[c]! * (1 - mix) + WHITE[c]! * mix);
      pixels[offset + 3] = spec.opaque ? 255 : Math.round((255 * inside) / samples);
    }
  }
  return pixels;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** An 8-bit RGBA PNG, each scanline with filter 0 (none): deflate does the rest. */
export function encodePng(size: number, rgba: Uint8Array): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, size);
  view.setUint32(4, size);
  header.set([8, 6, 0, 0, 0], 8);
  const raw = new Uint8Array(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) raw.set(rgba.subarray(y * size * 4, (y + 1) * size * 4), y * (size * 4 + 1) + 1);
  const parts = [
    Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', new Uint8Array(0)),
  ];
  return Buffer.concat(parts);
}

const outDir = fileURLToPath(new URL('../public/icons/', import.meta.url));
mkdirSync(outDir, { recursive: true });
for (const spec of ICONS) {
  const png = encodePng(spec.size, draw(spec));
  writeFileSync(join(outDir, spec.file), png);
  console.log(`${spec.file}  ${spec.size}×${spec.size}  ${png.length} bytes`);
}
