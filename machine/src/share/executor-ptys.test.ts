import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LinkPeer, MachineEvent } from '@tether/shared-protocol';
import {
  MAX_OUTPUT_CHUNK_BYTES,
  OUTPUT_WINDOW_BYTES,
  decodeMachineEvent,
  fromBase64Url,
  toBase64Url,
} from '@tether/shared-protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakePtyPort } from '../terminal/fake-pty.js';
import { MAX_PENDING_TERMINAL_INPUT } from '../terminal/terminal.js';
import { code, linkTo } from './testing/link-harness.js';
import { MachineExecutor } from './machine-executor.js';

let base: string;
let port: FakePtyPort;
let executor: MachineExecutor;
let host: LinkPeer;
let events: MachineEvent[];

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-ptys-')));
  mkdirSync(join(base, 'data'));
  mkdirSync(join(base, 'project'));
  port = new FakePtyPort();
  executor = new MachineExecutor({
    roots: [base],
    privates: [join(base, 'data')],
    tasksDir: join(base, 'data', 'tasks'),
    pty: port,
    maxPtys: 2,
    env: { SHELL: '/bin/test-shell', PATH: '/usr/bin', OPENAI_API_KEY: 'sk-secret', TETHER_TOKEN: 'tm_secret' },
  });
  host = (await linkTo(executor)).host;
  events = [];
  host.onEvent = (raw) => {
    const decoded = decodeMachineEvent(raw);
    if (decoded.kind === 'event') events.push(decoded.event);
  };
});

afterEach(async () => {
  await executor.close();
  rmSync(base, { recursive: true, force: true });
});

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`never: ${what}`);
};
const outputBytes = (ptyId: string) =>
  events.reduce((n, e) => n + (e.type === 'pty.output' && e.ptyId === ptyId ? fromBase64Url(e.data)!.length : 0), 0);

describe('terminals served over the link', () => {
  it('runs the login shell in a shared folder, with the machine’s credentials out of its environment', async () => {
    const spawned = await host.request('pty.spawn', { ptyId: 'y1', cwd: join(base, 'project'), cols: 80, rows: 24 });
    expect(spawned).toMatchObject({ ok: true, value: { shell: '/bin/test-shell', cwd: join(base, 'project') } });
    const pty = port.last;
    expect(pty.request).toMatchObject({ file: '/bin/test-shell', args: ['-l'], cols: 80, rows: 24 });
    expect(pty.request.env).toMatchObject({ PATH: '/usr/bin', TERM: 'xterm-256color' });
    expect(pty.request.env.OPENAI_API_KEY).toBeUndefined();
    expect(pty.request.env.TETHER_TOKEN).toBeUndefined();

    expect(code(await host.request('pty.write', { ptyId: 'y1', data: toBase64Url(Buffer.from('ls\n')) }))).toBe('ok');
    expect(pty.inputText()).toBe('ls\n');
    expect(code(await host.request('pty.resize', { ptyId: 'y1', cols: 120, rows: 40 }))).toBe('ok');
    expect([pty.cols, pty.rows]).toEqual([120, 40]);
    pty.emit('a.txt\r\n');
    pty.exit({ code: 0, signal: null });
    await until(() => events.some((e) => e.type === 'pty.exit'), 'pty.exit');
    expect(events.map((e) => e.type)).toEqual(['pty.output', 'pty.exit']);
    expect(executor.ptys.count).toBe(0);
  });

  it('starts in the first shared folder by default, and a relative folder inside it', async () => {
    expect(await host.request('pty.spawn', { ptyId: 'y1', cols: 80, rows: 24 })).toMatchObject({
      ok: true,
      value: { cwd: base },
    });
    expect(await host.request('pty.spawn', { ptyId: 'y2', cwd: 'project', cols: 80, rows: 24 })).toMatchObject({
      ok: true,
      value: { cwd: join(base, 'project') },
    });
  });

  it('refuses folders outside its roots, private ones, links that lead out, and files', async () => {
    symlinkSync('/etc', join(base, 'out'));
    writeFileSync(join(base, 'file.txt'), 'x');
    const open = async (cwd: string) => code(await host.request('pty.spawn', { ptyId: 'y1', cwd, cols: 80, rows: 24 }));
    expect(await open('/etc')).toBe('outside-root');
    expect(await open('../..')).toBe('outside-root');
    expect(await open(join(base, 'out'))).toBe('outside-root');
    expect(await open(join(base, 'data'))).toBe('outside-root');
    expect(await open('data')).toBe('outside-root');
    expect(await open(join(base, 'file.txt'))).toBe('not-a-folder');
    expect(await open(join(base, 'missing'))).toBe('not-found');
    expect(code(await host.request('pty.spawn', { ptyId: 'y1', cols: 0, rows: 24 }))).toBe('invalid-params');
    expect(port.spawned).toEqual([]);
  });

  it('keeps at most its bound of terminals, and refuses an id in use', async () => {
    expect(code(await host.request('pty.spawn', { ptyId: 'y1', cols: 80, rows: 24 }))).toBe('ok');
    expect(code(await host.request('pty.spawn', { ptyId: 'y1', cols: 80, rows: 24 }))).toBe('invalid-params');
    expect(code(await host.request('pty.spawn', { ptyId: 'y2', cols: 80, rows: 24 }))).toBe('ok');
    expect(code(await host.request('pty.spawn', { ptyId: 'y3', cols: 80, rows: 24 }))).toBe('busy');
  });

  it('pauses the PTY once a window of output is unacknowledged, and resumes it at half', async () => {
    await host.request('pty.spawn', { ptyId: 'y1', cols: 80, rows: 24 });
    const pty = port.last;
    pty.emit(new Uint8Array(OUTPUT_WINDOW_BYTES + 10));
    await until(() => outputBytes('y1') === OUTPUT_WINDOW_BYTES + 10, 'the output');
    expect(
      events.every((e) => e.type !== 'pty.output' || fromBase64Url(e.data)!.length <= MAX_OUTPUT_CHUNK_BYTES),
    ).toBe(true);
    expect(pty.paused).toBe(true);
    host.notify({ type: 'pty.ack', ptyId: 'y1', bytes: OUTPUT_WINDOW_BYTES / 2 });
    expect(code(await host.request('machine.ping', {}))).toBe('ok'); // the ack has arrived
    expect(pty.paused).toBe(true);
    host.notify({ type: 'pty.ack', ptyId: 'y1', bytes: 10 });
    await until(() => !pty.paused, 'resumed');
  });

  it('refuses input past the bound a program that does not read may hold', async () => {
    await host.request('pty.spawn', { ptyId: 'y1', cols: 80, rows: 24 });
    port.last.pending = MAX_PENDING_TERMINAL_INPUT;
    expect(code(await host.request('pty.write', { ptyId: 'y1', data: toBase64Url(Buffer.from('x')) }))).toBe('busy');
    expect(code(await host.request('pty.write', { ptyId: 'nope', data: '' }))).toBe('not-found');
  });

  it('kills every terminal when the link drops', async () => {
    await host.request('pty.spawn', { ptyId: 'y1', cols: 80, rows: 24 });
    executor.detach();
    expect(port.last.signals).toEqual(['SIGKILL']);
    expect(executor.ptys.count).toBe(0);
  });
});
