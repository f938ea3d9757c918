// npm run bench -- terminal-parsers
// The host's screen model (@xterm/headless) against Ghostty's VT parser compiled to WebAssembly
// (ghostty-web), fed the same byte streams in the same process, in turns:
//   - plain: lines of text, what `cat` of a log gives;
//   - vim: vim recorded on a real PTY paging through a source file with syntax colours (cursor
//     moves, SGR colours, the alternate screen, scroll regions);
//   - top: top recorded on a real PTY redrawing its full screen ten times a second;
//   - build log: a generated compiler-and-test log in SGR colours (no real build here to record).
// Each stream is repeated to a few MB. Printed per stream: parse MB/s of each (best of three
// rounds), whether the final screens match cell for cell (text, width, bold/italic/underline/
// inverse/…, foreground and background resolved through one palette, the cursor), and the memory
// one terminal holds after the stream (16 terminals fed it, kept at once: xterm's heap after a
// collection; Ghostty's WebAssembly memory, in an instance of its own).
import { NodePtyPort } from '@tether/machine';
import headless from '@xterm/headless';
import { Ghostty } from 'ghostty-web';
import type { GhosttyTerminal } from 'ghostty-web';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';

const COLS = 120;
const ROWS = 40;
const SCROLLBACK = 200;
const CHUNK = 16 * 1024;
const STREAM_BYTES = Number(process.env.BENCH_PARSER_BYTES ?? 8 * 1024 * 1024);
const MEMORY_TERMINALS = 16;

/** One palette for both: the 16 xterm colours, the 6×6×6 cube and the greys; default colours
 * get values no palette entry has, so "default" and "a colour" never compare equal by accident. */
const PALETTE = [
  ...[0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5],
  ...[0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff],
  ...Array.from({ length: 216 }, (_, i) => {
    const level = (n: number) => (n === 0 ? 0 : 55 + n * 40);
    return (level(Math.floor(i / 36)) << 16) | (level(Math.floor(i / 6) % 6) << 8) | level(i % 6);
  }),
  ...Array.from({ length: 24 }, (_, i) => (8 + i * 10) * 0x010101),
];
const DEFAULT_FG = 0x010203;
const DEFAULT_BG = 0x040506;

/** Records a program on a real PTY: its output while `keys` are typed, one entry every 40 ms. */
async function record(file: string, args: string[], keys: string[]): Promise<Uint8Array> {
  const spawned = new NodePtyPort().spawn({
    file,
    args,
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), TERM: 'xterm-256color', LANG: 'C.UTF-8' },
    cols: COLS,
    rows: ROWS,
  });
  if (!spawned.ok) throw new Error(spawned.error.message);
  const pty = spawned.value;
  const chunks: Uint8Array[] = [];
  pty.onData((chunk) => chunks.push(chunk));
  const exited = new Promise<void>((resolve) => pty.onExit(() => resolve()));
  await new Promise((resolve) => setTimeout(resolve, 400));
  for (const key of keys) {
    pty.write(new TextEncoder().encode(key));
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  const timer = setTimeout(() => pty.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
  return Buffer.concat(chunks);
}

function repeatTo(stream: Uint8Array, bytes: number): Uint8Array {
  return Buffer.concat(Array.from({ length: Math.max(1, Math.ceil(bytes / stream.length)) }, () => stream));
}

function buildLog(): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; lines.join('\n').length < 256 * 1024; i++) {
    const file = `src/module-${i % 97}/file-${i % 13}.ts`;
    lines.push(`\x1b[2m[${String(i).padStart(5, '0')}]\x1b[0m \x1b[36mcompiling\x1b[39m ${file}`);
    if (i % 7 === 0)
      lines.push(`\x1b[1;33mwarning\x1b[0m\x1b[1m: unused variable \`x${i}\`\x1b[0m at ${file}:${i % 300}:5`);
    if (i % 11 === 0)
      lines.push(
        `  \x1b[32m✓\x1b[39m \x1b[2m${file}\x1b[22m (\x1b[33m${i % 40} tests\x1b[39m) \x1b[2m${i % 900}ms\x1b[22m`,
      );
    if (i % 29 === 0)
      lines.push(`  \x1b[31m✗\x1b[39m \x1b[41;97m FAIL \x1b[0m ${file} \x1b[38;5;208mexpected 1 to be 2\x1b[0m`);
    if (i % 17 === 0)
      lines.push(`\x1b[38;2;120;180;255mprogress\x1b[0m [${'#'.repeat(i % 40).padEnd(40, '.')}] ${i % 100}%\r`);
  }
  return new TextEncoder().encode(lines.join('\r\n') + '\r\n');
}

interface Screen {
  cells: string[];
  cursor: string;
}

function xtermScreen(terminal: headless.Terminal): Screen {
  const buffer = terminal.buffer.active;
  const color = (mode: 'fg' | 'bg', cell: headless.IBufferCell) => {
    const fg = mode === 'fg';
    if (fg ? cell.isFgDefault() : cell.isBgDefault()) return fg ? DEFAULT_FG : DEFAULT_BG;
    const value = fg ? cell.getFgColor() : cell.getBgColor();
    return (fg ? cell.isFgPalette() : cell.isBgPalette()) ? PALETTE[value]! : value;
  };
  const cells: string[] = [];
  for (let y = 0; y < ROWS; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    for (let x = 0; x < COLS; x++) {
      const cell = line?.getCell(x);
      if (!cell) continue;
      const flags = [cell.isBold(), cell.isItalic(), cell.isUnderline(), cell.isStrikethrough()]
        .concat([cell.isInverse(), cell.isInvisible(), cell.isBlink(), cell.isDim()])
        .map((on) => (on ? 1 : 0))
        .join('');
      cells.push(`${cell.getChars() || ' '}|${cell.getWidth()}|${flags}|${color('fg', cell)}|${color('bg', cell)}`);
    }
  }
  return { cells, cursor: `${buffer.cursorX},${buffer.cursorY}` };
}

function ghosttyScreen(terminal: GhosttyTerminal): Screen {
  terminal.update();
  const cells: string[] = [];
  const rgb = (r: number, g: number, b: number) => (r << 16) | (g << 8) | b;
  for (const cell of terminal.getViewport()) {
    const flags = [1, 2, 4, 8, 16, 32, 64, 128].map((bit) => (cell.flags & bit ? 1 : 0)).join('');
    const chars = cell.codepoint === 0 ? ' ' : String.fromCodePoint(cell.codepoint);
    cells.push(
      `${chars}|${cell.width}|${flags}|${rgb(cell.fg_r, cell.fg_g, cell.fg_b)}|${rgb(cell.bg_r, cell.bg_g, cell.bg_b)}`,
    );
  }
  const cursor = terminal.getCursor();
  return { cells, cursor: `${cursor.x},${cursor.y}` };
}

function chunks(stream: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < stream.length; at += CHUNK) out.push(stream.subarray(at, at + CHUNK));
  return out;
}

function newXterm(): headless.Terminal {
  return new headless.Terminal({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK, allowProposedApi: true });
}

async function feedXterm(terminal: headless.Terminal, stream: Uint8Array): Promise<void> {
  for (const chunk of chunks(stream)) terminal.write(chunk);
  await new Promise<void>((resolve) => terminal.write('', resolve));
}

const wasm = readFileSync(createRequire(import.meta.url).resolve('ghostty-web/ghostty-vt.wasm'));
/** WebAssembly, as far as used here (the host compiles without the DOM library that declares it). */
interface WasmInstance {
  exports: { memory: { buffer: ArrayBuffer } };
}
const { WebAssembly: wasmApi } = globalThis as unknown as {
  WebAssembly: {
    compile(bytes: Uint8Array): Promise<object>;
    instantiate(module: object, imports: object): Promise<WasmInstance>;
  };
};
const module = await wasmApi.compile(wasm);
const instantiate = () => wasmApi.instantiate(module, { env: { log: () => undefined } });
const ghostty = new Ghostty(await instantiate());
const newGhostty = (instance = ghostty) =>
  instance.createTerminal(COLS, ROWS, {
    scrollbackLimit: SCROLLBACK * COLS * 16,
    fgColor: DEFAULT_FG,
    bgColor: DEFAULT_BG,
    palette: PALETTE,
  });
function feedGhostty(terminal: GhosttyTerminal, stream: Uint8Array): void {
  for (const chunk of chunks(stream)) terminal.write(chunk);
}

/** Best MB/s of three rounds of each, in turns. */
async function rates(stream: Uint8Array): Promise<{ xterm: number; ghostty: number }> {
  const best = { xterm: 0, ghostty: 0 };
  for (let round = 0; round < 3; round++) {
    const x = newXterm();
    let began = performance.now();
    await feedXterm(x, stream);
    best.xterm = Math.max(best.xterm, stream.length / 1e6 / ((performance.now() - began) / 1000));
    x.dispose();
    const g = newGhostty();
    began = performance.now();
    feedGhostty(g, stream);
    g.update();
    best.ghostty = Math.max(best.ghostty, stream.length / 1e6 / ((performance.now() - began) / 1000));
    g.free();
  }
  return best;
}

/** Bytes the JavaScript heap and its buffers hold, after a full collection. */
function heldBytes(): number {
  collect();
  const used = process.memoryUsage();
  return used.heapUsed + used.external + used.arrayBuffers;
}
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Memory one terminal holds after the stream, over MEMORY_TERMINALS kept alive at once: xterm's
 * JavaScript heap; Ghostty's WebAssembly memory, in a fresh instance of its own. */
async function memoryPerTerminal(stream: Uint8Array): Promise<{ xterm: number; ghostty: number }> {
  const before = heldBytes();
  const xterms: headless.Terminal[] = [];
  for (let i = 0; i < MEMORY_TERMINALS; i++) {
    xterms.push(newXterm());
    await feedXterm(xterms[i]!, stream);
  }
  const xterm = (heldBytes() - before) / MEMORY_TERMINALS;
  for (const t of xterms) t.dispose();
  const instance = await instantiate();
  const fresh = new Ghostty(instance);
  const { memory } = instance.exports;
  const start = memory.buffer.byteLength;
  const ghostties = Array.from({ length: MEMORY_TERMINALS }, () => newGhostty(fresh));
  for (const t of ghostties) feedGhostty(t, stream);
  const ghostty = (memory.buffer.byteLength - start) / MEMORY_TERMINALS;
  for (const t of ghostties) t.free();
  return { xterm, ghostty };
}

function compare(a: Screen, b: Screen): string {
  const differing = a.cells.filter((cell, i) => cell !== b.cells[i]).length + Math.abs(a.cells.length - b.cells.length);
  const cursor = a.cursor === b.cursor ? 'same cursor' : `cursor ${a.cursor} vs ${b.cursor}`;
  if (differing === 0) return `exact (${a.cells.length} cells, ${cursor})`;
  const first = a.cells.findIndex((cell, i) => cell !== b.cells[i]);
  const at = `row ${Math.floor(first / COLS)} col ${first % COLS}`;
  return `DIFFERS in ${differing} of ${a.cells.length} cells, ${cursor}; first at ${at}: xterm ${JSON.stringify(a.cells[first])} ghostty ${JSON.stringify(b.cells[first])}`;
}

const source = readFileSync(join(import.meta.dirname, '../src/terminals/terminal-manager.ts'));
const sourceFile = join(tmpdir(), `tether-parsers-${process.pid}.ts`);
writeFileSync(sourceFile, Buffer.concat(Array.from({ length: 8 }, () => source)));
const vimKeys = [...Array.from({ length: 60 }, (_, i) => (i % 3 === 2 ? '\x15' : '\x06')), ':q!\r'];
const vim = await record(
  '/usr/bin/vim',
  ['-u', 'NONE', '-N', '-c', 'syntax on', '-c', 'set number', sourceFile],
  vimKeys,
);
rmSync(sourceFile, { force: true });
const top = await record('/usr/bin/top', ['-d', '0.1', '-n', '30'], []);
const plainLine = `${'0123456789abcdef'.repeat(4)}\r\n`;
const streams: [string, Uint8Array][] = [
  ['plain', new TextEncoder().encode(plainLine.repeat(Math.ceil(STREAM_BYTES / plainLine.length)))],
  [`vim (recorded, ${(vim.length / 1024).toFixed(0)} KiB repeated)`, repeatTo(vim, STREAM_BYTES / 2)],
  [`top (recorded, ${(top.length / 1024).toFixed(0)} KiB repeated)`, repeatTo(top, STREAM_BYTES / 2)],
  ['build log (generated)', repeatTo(buildLog(), STREAM_BYTES)],
];

// Memory first, while the heap holds nothing but the streams.
const memories = [];
for (const [, stream] of streams) memories.push(await memoryPerTerminal(stream));
const figures: string[] = [];
for (const [index, [name, stream]] of streams.entries()) {
  const rate = await rates(stream);
  const x = newXterm();
  await feedXterm(x, stream);
  const g = newGhostty();
  feedGhostty(g, stream);
  const exact = compare(xtermScreen(x), ghosttyScreen(g));
  x.dispose();
  g.free();
  const memory = memories[index]!;
  const kib = (bytes: number) => `${Math.max(0, bytes / 1024).toFixed(0)} KiB`;
  console.log(`${name}: ${(stream.length / 1e6).toFixed(1)} MB`);
  console.log(
    `  parse: xterm ${rate.xterm.toFixed(1)} MB/s, ghostty ${rate.ghostty.toFixed(1)} MB/s = ${(rate.ghostty / rate.xterm).toFixed(2)}×`,
  );
  console.log(`  final screen: ${exact}`);
  console.log(`  memory per terminal: xterm ${kib(memory.xterm)}, ghostty ${kib(memory.ghostty)}`);
  figures.push(
    `${name.split(' ')[0]}-xterm-mbs=${rate.xterm.toFixed(1)} ${name.split(' ')[0]}-ghostty-mbs=${rate.ghostty.toFixed(1)}`,
  );
}
console.log(`terminal-parsers ${figures.join(' ')}`);
