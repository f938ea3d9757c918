// npm run bench -- terminal (its second part)
// Ctrl-C in a flood: `yes` floods a terminal; after FLOOD_MS the device sends "\x03" as
// `terminals.input`, timed from the send until
//   (1) the shell's prompt is back on the device's screen (the program got the interrupt and ended),
//   (2) the device is quiet: its last output or screen before QUIET_MS of none.
// p50 and p99 over RUNS runs, target ≤ 200 ms each, for two devices in turns: one acknowledging
// as it draws (in this process it keeps up, so it gets every byte) and one whose acknowledgements
// take a phone's round trip (so it gets screens). Against the same on a bare PTY (node-pty,
// nothing else, the interrupt written straight to it), in turns in the same run.
import type { TetherEvent } from '@tether/shared-protocol';
import { NodePtyPort } from '@tether/machine';
import { fromBase64Url, terminalOutputBytes } from '@tether/shared-protocol';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchRowLine } from '@tether/shared-protocol/testing';
import { connectDevice, pairDevice, until } from '../test/support/remote-device.js';
import { LOCAL_REMOTE, startTestHost } from '../test/support/test-host.js';
import { percentile } from './percentile.js';

const RUNS = Number(process.env.BENCH_INTERRUPT_RUNS ?? 10);
/** Milliseconds of flood before the interrupt: every buffer on the way is full by then. */
const FLOOD_MS = 500;
/** Milliseconds with no output after which the device counts as quiet. */
const QUIET_MS = 500;
const PHONE_RTT_MS = 50;
const PROMPT = 'ready>';

/** What a device (or the bare PTY's reader) saw since the interrupt: text, and when output last came. */
class Watch {
  text = '';
  last = 0;
  take(text: string, replace = false): void {
    this.text = (replace ? text : this.text + text).slice(-4096);
    this.last = performance.now();
  }
}

/** One flood and interrupt: ms to the prompt and to quiet, from the interrupt. */
async function interrupt(
  watch: Watch,
  type: (data: string) => Promise<void>,
): Promise<{ prompt: number; quiet: number }> {
  await type('yes\r');
  await new Promise((resolve) => setTimeout(resolve, FLOOD_MS));
  watch.text = '';
  const began = performance.now();
  await type('\x03');
  await until(() => watch.text.includes(PROMPT) || undefined, 30_000, 'the prompt after Ctrl-C');
  const prompt = performance.now() - began;
  await until(() => performance.now() - watch.last >= QUIET_MS || undefined, 30_000, 'quiet');
  return { prompt, quiet: watch.last - began };
}

const dir = mkdtempSync(join(tmpdir(), 'tether-bench-interrupt-'));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', SHELL: '/bin/bash', HOME: dir, LANG: 'C.UTF-8' };
const bashArgs = ['--norc', '--noprofile', '-i'];
const t = await startTestHost({ remote: { ...LOCAL_REMOTE, roots: [dir] }, env: { ...env, PS1: `${PROMPT} ` } });
const bare = new NodePtyPort().spawn({
  file: '/bin/bash',
  args: bashArgs,
  cwd: dir,
  env: { ...env, PS1: `${PROMPT} `, TERM: 'xterm-256color' },
  cols: 120,
  rows: 40,
});
if (!bare.ok) throw new Error(bare.error.message);
try {
  const bareWatch = new Watch();
  bare.value.onData((chunk) => bareWatch.take(new TextDecoder().decode(chunk)));
  const bareType = (data: string) => Promise.resolve(bare.value.write(new TextEncoder().encode(data)));

  const device = await pairDevice(t);
  const { client } = connectDevice(t, device);
  const opened = await client.call('terminals.open', { cwd: dir, cols: 120, rows: 40 });
  if (!opened.ok) throw new Error(opened.error.message);
  const terminalId = opened.value.terminalId;
  const watch = new Watch();
  let ackDelayMs = 0;
  let screens = 0;
  client.onEvent((event: TetherEvent) => {
    if (!('terminalId' in event) || event.terminalId !== terminalId) return;
    let offset: number;
    if (event.type === 'terminal.screen') {
      screens++;
      watch.take(new TextDecoder().decode(fromBase64Url(event.data)), true);
      offset = event.offset;
    } else if (event.type === 'terminal.output') {
      const data = terminalOutputBytes(event.data)!;
      watch.take(new TextDecoder().decode(data));
      offset = event.offset + data.length;
    } else return;
    // Acknowledged as drawn (the app waits for 32 KiB or 200 ms; every message here is as good).
    const ack = () => void client.call('terminals.ack', { terminalId, offset });
    if (ackDelayMs > 0) setTimeout(ack, ackDelayMs);
    else ack();
  });
  expect((await client.call('terminals.attach', { terminalId, after: 0, binary: true })).ok);
  const type = async (data: string) => expect((await client.call('terminals.input', { terminalId, data })).ok);
  // A login shell sets its own prompt: this one, quoted so that its echo does not match.
  await until(() => watch.last > 0 || undefined, 10_000, 'the shell');
  await type(`PS1='${PROMPT.slice(0, 3)}''${PROMPT.slice(3)} '\r`);
  await until(() => watch.text.includes(PROMPT) || undefined, 10_000, 'the prompt');

  type Run = { prompt: number; quiet: number };
  const runs = { bare: [] as Run[], device: [] as Run[], phone: [] as Run[] };
  let phoneScreens = 0;
  for (let i = 0; i < RUNS; i++) {
    runs.bare.push(await interrupt(bareWatch, bareType));
    ackDelayMs = 0;
    runs.device.push(await interrupt(watch, type));
    ackDelayMs = PHONE_RTT_MS;
    const before = screens;
    runs.phone.push(await interrupt(watch, type));
    phoneScreens += screens - before;
  }
  const line = (name: string, values: { prompt: number; quiet: number }[]) => {
    const at = (key: 'prompt' | 'quiet', p: number) =>
      percentile(
        values.map((v) => v[key]),
        p,
      ).toFixed(0);
    console.log(
      `${name}: prompt p50 ${at('prompt', 50)} ms, p99 ${at('prompt', 99)} ms; quiet p50 ${at('quiet', 50)} ms, p99 ${at('quiet', 99)} ms`,
    );
  };
  console.log(
    `Ctrl-C after ${FLOOD_MS} ms of \`yes\`, ${RUNS} runs each, in turns (target: prompt and quiet ≤ 200 ms):`,
  );
  line('bare PTY', runs.bare);
  line('device acknowledging as it draws', runs.device);
  line(`device acknowledging ${PHONE_RTT_MS} ms late (${(phoneScreens / RUNS).toFixed(0)} screens a run)`, runs.phone);
  const p = (values: { quiet: number }[], q: number) =>
    percentile(
      values.map((v) => v.quiet),
      q,
    ).toFixed(0);
  console.log(
    `terminal-interrupt bare-quiet-p50-ms=${p(runs.bare, 50)} device-quiet-p50-ms=${p(runs.device, 50)} device-quiet-p99-ms=${p(runs.device, 99)} phone-quiet-p50-ms=${p(runs.phone, 50)} phone-quiet-p99-ms=${p(runs.phone, 99)}`,
  );
  const promptP99 = percentile(
    runs.phone.map((r) => r.prompt),
    99,
  );
  console.log(
    benchRowLine({
      id: 'terminal.interrupt-phone-p99',
      label: "Ctrl-C in a flood → the prompt back on a device at a phone's pace, p99, against 200 ms",
      ratio: promptP99 / 200,
      better: 'lower',
      target: 1,
      detail: {
        promptP99Ms: promptP99,
        quietP99Ms: Number(p(runs.phone, 99)),
        bareQuietP50Ms: Number(p(runs.bare, 50)),
      },
    }),
  );
  client.stop();
} finally {
  bare.value.kill('SIGKILL');
  await t.close();
  rmSync(dir, { recursive: true, force: true });
}

function expect(ok: boolean): void {
  if (!ok) throw new Error('the host refused a terminal call');
}
