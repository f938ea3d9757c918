// npm run bench -- terminal
// Terminals on loopback, device → host → PTY → device, with the host and a device in this process:
//   - keystroke to echo: one key sent as `terminals.input`, timed until the shell's echo arrives
//     as `terminal.output`, decrypted (p50, p99), against the same keys written straight to a
//     bare PTY running the same shell (node-pty, nothing else) in the same run;
//   - throughput: `cat` of a text file in the terminal, the device acknowledging as it goes, in
//     MB/s of the file with the peak growth of this process's memory, against the same file
//     through a plain socket pipe (`cat` into a loopback TCP socket) and through a bare PTY
//     (node-pty, nothing else), both measured in the same run. A PTY passes a few KiB per read,
//     so it is the bare PTY that bounds a terminal on a busy machine, not the socket. This device
//     is in this process and acknowledges at once, so it keeps up and gets every byte;
//   - the same flood with the device's acknowledgements taking a phone's round trip (50 ms): the
//     output outruns it, so it gets the screen at a frame rate instead and the flood runs at the
//     screen model's pace; against a bare PTY run just before it.
// Ctrl-C in a flood is timed by terminal-interrupt.ts, the second part of `npm run bench -- terminal`.
// Through a machine: not yet (machines land separately; the same Terminal runs there).
import type { TetherEvent } from '@tether/shared-protocol';
import { NodePtyPort } from '@tether/machine';
import { TERMINAL_ACK_BYTES, fromBase64Url, terminalOutputBytes } from '@tether/shared-protocol';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchRowLine } from '@tether/shared-protocol/testing';
import { connectDevice, pairDevice, until } from '../test/support/remote-device.js';
import { percentile } from './percentile.js';
import { LOCAL_REMOTE, startTestHost } from '../test/support/test-host.js';

const KEYS = 400;
const WARMUP_KEYS = 50;
/** Bytes of the file catted: large enough that start-up costs vanish, small for a 2-core machine. */
const FILE_BYTES = Number(process.env.BENCH_TERMINAL_BYTES ?? 32 * 1024 * 1024);
const MARKER = '__bench_done__';
/** A phone's round trip on a good network: its acknowledgements arrive this much later. */
const PHONE_RTT_MS = 50;

/** Samples the resident set size while `work` runs; its growth over the start, at the peak. */
async function peakGrowth<T>(
  work: () => Promise<T>,
): Promise<{ value: T; peakBytes: number; ms: number; cpuMs: number }> {
  const start = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const began = performance.now();
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    const used = process.cpuUsage(cpu);
    return { value, peakBytes: peak - start, ms: performance.now() - began, cpuMs: (used.user + used.system) / 1000 };
  } finally {
    clearInterval(timer);
  }
}

async function plainPipe(file: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const received = new Promise<number>((resolve) =>
    server.once('connection', (socket) => {
      let bytes = 0;
      socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
      socket.on('end', () => resolve(bytes));
    }),
  );
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const child = spawn('cat', [file], { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.pipe(socket);
  const bytes = await received;
  server.close();
  return bytes;
}

/** `cat` of the file on a bare PTY, every chunk read and dropped: bytes read. */
async function barePty(file: string): Promise<number> {
  const spawned = new NodePtyPort().spawn({
    file: '/bin/cat',
    args: [file],
    cwd: tmpdir(),
    env: {},
    cols: 120,
    rows: 40,
  });
  if (!spawned.ok) throw new Error(spawned.error.message);
  let bytes = 0;
  spawned.value.onData((chunk) => (bytes += chunk.length));
  await new Promise<void>((resolve) => spawned.value.onExit(() => resolve()));
  return bytes;
}

/** Keys in the shell's line editor, repeated in lines of 49 then cleared with Ctrl-U. */
async function typeKeys(send: (data: string) => void, nextOutput: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP_KEYS + KEYS; i++) {
    if (i % 50 === 49) {
      const cleared = nextOutput();
      send('\x15'); // Ctrl-U: clear the line
      await cleared;
      continue;
    }
    const echoed = nextOutput();
    const began = performance.now();
    send('x');
    await echoed;
    if (i >= WARMUP_KEYS) times.push(performance.now() - began);
  }
  send('\x15');
  return times;
}

/** The baseline for keystroke → echo: the same shell on a bare PTY, keys written straight to it. */
async function barePtyEcho(env: Record<string, string>, cwd: string): Promise<number[]> {
  const spawned = new NodePtyPort().spawn({
    file: '/bin/bash',
    args: ['-l'],
    cwd,
    env: { ...env, TERM: 'xterm-256color' },
    cols: 120,
    rows: 40,
  });
  if (!spawned.ok) throw new Error(spawned.error.message);
  const pty = spawned.value;
  let tail = '';
  const waiters = new Set<() => void>();
  pty.onData((chunk) => {
    tail = (tail + new TextDecoder().decode(chunk)).slice(-256);
    for (const wake of waiters) wake();
  });
  const exited = new Promise<void>((resolve) => pty.onExit(() => resolve()));
  try {
    await until(() => /[$#] $/.test(tail) || undefined, 10_000, 'the bare PTY prompt');
    return await typeKeys(
      (data) => pty.write(new TextEncoder().encode(data)),
      () =>
        new Promise<void>((resolve) =>
          waiters.add(function wake() {
            waiters.delete(wake);
            resolve();
          }),
        ),
    );
  } finally {
    pty.kill('SIGKILL');
    await exited;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'tether-bench-terminal-'));
const file = join(dir, 'big.txt');
const line = `${'0123456789abcdef'.repeat(4)}\n`;
writeFileSync(file, line.repeat(Math.ceil(FILE_BYTES / line.length)));

const shellEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  SHELL: '/bin/bash',
  HOME: dir,
  PS1: '$ ',
  LANG: 'C.UTF-8',
};
const t = await startTestHost({ remote: { ...LOCAL_REMOTE, roots: [dir] }, env: shellEnv });
try {
  const device = await pairDevice(t);
  const { client } = connectDevice(t, device);
  const opened = await client.call('terminals.open', { cwd: dir, cols: 120, rows: 40 });
  if (!opened.ok) throw new Error(opened.error.message);
  const terminalId = opened.value.terminalId;
  let held = 0;
  let acked = 0;
  let tail = '';
  const waiters = new Set<() => void>();
  let screens = 0;
  /** Milliseconds the device's acknowledgements take to reach the host: none, or a phone's round trip. */
  let ackDelayMs = 0;
  /** Bytes of output and of screens the device got. */
  let wire = 0;
  client.onEvent((event: TetherEvent) => {
    if (!('terminalId' in event) || event.terminalId !== terminalId) return;
    if (event.type === 'terminal.screen') {
      // A device a window behind gets the screen instead of the bytes; it acknowledges it as drawn.
      const data = fromBase64Url(event.data)!;
      screens++;
      wire += data.length;
      held = event.offset;
      tail = new TextDecoder().decode(data).slice(-4096);
    } else if (event.type === 'terminal.output') {
      const data = terminalOutputBytes(event.data)!;
      held = event.offset + data.length;
      wire += data.length;
      tail = (tail + new TextDecoder().decode(data)).slice(-4096);
    } else return;
    if (held - acked >= TERMINAL_ACK_BYTES || event.type === 'terminal.screen') {
      acked = held;
      const ack = () => void client.call('terminals.ack', { terminalId, offset: held });
      if (ackDelayMs > 0) setTimeout(ack, ackDelayMs);
      else ack();
    }
    for (const wake of waiters) wake();
  });
  const nextOutput = () =>
    new Promise<void>((resolve) =>
      waiters.add(function wake() {
        waiters.delete(wake);
        resolve();
      }),
    );
  const attached = await client.call('terminals.attach', { terminalId, after: 0, binary: true });
  if (!attached.ok) throw new Error(attached.error.message);
  await until(() => /[$#] $/.test(tail) || undefined, 10_000, 'the prompt');

  // Keystroke → echo, the bare PTY first.
  const bareTimes = await barePtyEcho(shellEnv, dir);
  const times = await typeKeys((data) => void client.call('terminals.input', { terminalId, data }), nextOutput);
  const ms = (values: number[], p: number) => percentile(values, p).toFixed(2);
  console.log(
    `keystroke→echo on a bare PTY (${bareTimes.length} keys): p50 ${ms(bareTimes, 50)} ms, p99 ${ms(bareTimes, 99)} ms`,
  );
  console.log(`keystroke→echo over loopback (${times.length} keys): p50 ${ms(times, 50)} ms, p99 ${ms(times, 99)} ms`);
  console.log(
    `ratio terminal/bare PTY: keystroke p50 ${(percentile(times, 50) / Math.max(0.001, percentile(bareTimes, 50))).toFixed(1)}, p99 ${(percentile(times, 99) / Math.max(0.001, percentile(bareTimes, 99))).toFixed(1)}`,
  );

  // Throughput, baseline first.
  const plain = await peakGrowth(() => plainPipe(file));
  const plainMBs = plain.value / 1e6 / (plain.ms / 1000);
  const bare = await peakGrowth(() => barePty(file));
  const bareMBs = FILE_BYTES / 1e6 / (bare.ms / 1000);
  const flood = () =>
    peakGrowth(async () => {
      const start = { wire, screens };
      await client.call('terminals.input', {
        terminalId,
        data: `cat big.txt; echo ${MARKER.slice(0, 7)}''${MARKER.slice(7)}\r`,
      });
      await until(() => tail.includes(`\n${MARKER}`) || undefined, 300_000, 'the end of the file');
      tail = '';
      return { wire: wire - start.wire, screens: screens - start.screens };
    });
  const terminal = await flood();
  // A device at a phone's pace: its acknowledgements take PHONE_RTT_MS to arrive, so the output
  // outruns it and it gets screens. The bare PTY again first, in turns.
  const barePaced = await peakGrowth(() => barePty(file));
  ackDelayMs = PHONE_RTT_MS;
  const paced = await flood();
  ackDelayMs = 0;
  const terminalMBs = FILE_BYTES / 1e6 / (terminal.ms / 1000);
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  console.log(
    `plain socket pipe: ${(plain.value / 1e6).toFixed(1)} MB in ${plain.ms.toFixed(0)} ms = ${plainMBs.toFixed(1)} MB/s, peak memory growth ${mb(plain.peakBytes)}`,
  );
  console.log(
    `bare PTY: ${(bare.value / 1e6).toFixed(1)} MB in ${bare.ms.toFixed(0)} ms = ${bareMBs.toFixed(1)} MB/s of the file, peak memory growth ${mb(bare.peakBytes)}`,
  );
  console.log(
    `terminal (PTY, screen, sealed, acknowledged): ${(terminal.value.wire / 1e6).toFixed(1)} MB on the wire (${terminal.value.screens} screens) in ${terminal.ms.toFixed(0)} ms = ${terminalMBs.toFixed(1)} MB/s of the file, peak memory growth ${mb(terminal.peakBytes)}`,
  );
  console.log(
    `ratio terminal/plain: throughput ${(terminalMBs / plainMBs).toFixed(3)}, peak memory ${(terminal.peakBytes / Math.max(1, plain.peakBytes)).toFixed(1)}`,
  );
  console.log(`ratio terminal/bare PTY: throughput ${(terminalMBs / bareMBs).toFixed(3)}`);
  const pacedMBs = FILE_BYTES / 1e6 / (paced.ms / 1000);
  const barePacedMBs = FILE_BYTES / 1e6 / (barePaced.ms / 1000);
  console.log(
    `terminal, device acknowledging after ${PHONE_RTT_MS} ms: ${(paced.value.wire / 1e6).toFixed(1)} MB on the wire (${paced.value.screens} screens) in ${paced.ms.toFixed(0)} ms = ${pacedMBs.toFixed(1)} MB/s of the file; bare PTY just before ${barePacedMBs.toFixed(1)} MB/s`,
  );
  console.log(`ratio terminal/bare PTY, device at a phone's pace: throughput ${(pacedMBs / barePacedMBs).toFixed(3)}`);
  console.log(
    benchRowLine({
      id: 'terminal.phone-paced-flood',
      label: "terminal flood vs bare PTY, a device acknowledging at a phone's 50 ms round trip",
      ratio: pacedMBs / barePacedMBs,
      better: 'higher',
      target: 0.5,
      detail: { pacedMBs, barePacedMBs, screens: paced.value.screens },
    }),
  );
  // On a shared machine wall time swings with the load; this process's own CPU time does less.
  console.log(
    `CPU of this process (host and device both): bare PTY ${bare.cpuMs.toFixed(0)} ms, terminal ${terminal.cpuMs.toFixed(0)} ms = ${(FILE_BYTES / 1e6 / (terminal.cpuMs / 1000)).toFixed(1)} MB/s of CPU; ratio bare/terminal ${(bare.cpuMs / terminal.cpuMs).toFixed(3)}`,
  );
  console.log(
    `terminal keystroke-p50-ms=${percentile(times, 50).toFixed(2)} keystroke-p99-ms=${percentile(times, 99).toFixed(2)} bare-keystroke-p50-ms=${ms(bareTimes, 50)} throughput-mbs=${terminalMBs.toFixed(1)} plain-mbs=${plainMBs.toFixed(1)} bare-pty-mbs=${bareMBs.toFixed(1)} phone-paced-mbs=${pacedMBs.toFixed(1)} phone-paced-bare-pty-mbs=${barePacedMBs.toFixed(1)}`,
  );
  client.stop();
} finally {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
}
