import type { ProcessExit } from '@tether/machine';
import type { Result } from '@tether/shared-protocol';
import { MAX_OUTPUT_CHUNK_BYTES, OUTPUT_WINDOW_BYTES, ok, toBase64Url } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { MachineChannel } from './machine-channel.js';
import type { MachineLink } from './machine-link.js';
import { RemotePtyProcess, RemoteTerminals } from './remote-terminals.js';

/** A machine link driven by hand: records what the host sends, answers with `answer`. */
function handLink(answer: (method: string, params: unknown) => Result<unknown> = () => ok({})) {
  const requests: { method: string; params: unknown }[] = [];
  const notified: unknown[] = [];
  const eventListeners: ((event: unknown) => void)[] = [];
  const closeListeners: (() => void)[] = [];
  let closed = false;
  const link: MachineLink = {
    request: (method, params) => {
      requests.push({ method, params });
      return Promise.resolve(answer(method, params));
    },
    notify: (event) => notified.push(event) > 0,
    get closed() {
      return closed;
    },
    close: () => {
      closed = true;
      for (const listener of closeListeners) listener();
    },
    onEvent: (listener) => void eventListeners.push(listener),
    onClose: (listener) => void closeListeners.push(listener),
  };
  const emit = (event: unknown) => eventListeners.forEach((listener) => listener(event));
  return { link, requests, notified, emit };
}

function started() {
  const hand = handLink();
  const channel = new MachineChannel('m1', 'laptop', new ManualClock(), 60_000);
  channel.attach(hand.link);
  const pty = new RemotePtyProcess(channel, 'pty_1');
  pty.started(42);
  const data: number[] = [];
  const exits: ProcessExit[] = [];
  pty.onData((chunk) => data.push(chunk.length));
  pty.onExit((exit) => exits.push(exit));
  const output = (bytes: number) =>
    hand.emit({ type: 'pty.output', ptyId: 'pty_1', data: toBase64Url(new Uint8Array(bytes)) });
  return { ...hand, pty, data, exits, output };
}

describe('a PTY on a machine, from the host', () => {
  it('acknowledges output as it hands it on, and holds it unacknowledged while paused', () => {
    const s = started();
    s.output(100);
    expect(s.data).toEqual([100]);
    expect(s.notified).toEqual([{ type: 'pty.ack', ptyId: 'pty_1', bytes: 100 }]);
    s.pty.pause();
    s.output(50);
    s.output(60);
    expect(s.data).toEqual([100]);
    expect(s.notified).toHaveLength(1);
    s.pty.resume();
    expect(s.data).toEqual([100, 50, 60]);
    expect(s.notified.at(-1)).toEqual({ type: 'pty.ack', ptyId: 'pty_1', bytes: 110 });
    // Another terminal's output and malformed events are not its own.
    s.emit({ type: 'pty.output', ptyId: 'pty_2', data: toBase64Url(new Uint8Array(5)) });
    s.emit({ type: 'pty.output', ptyId: 'pty_1', data: '***' });
    expect(s.data).toEqual([100, 50, 60]);
  });

  it('reports the exit only after the output held before it', () => {
    const s = started();
    s.pty.pause();
    s.output(10);
    s.emit({ type: 'pty.exit', ptyId: 'pty_1', code: 0, signal: null });
    expect(s.exits).toEqual([]);
    s.pty.resume();
    expect(s.data).toEqual([10]);
    expect(s.exits).toEqual([{ code: 0, signal: null }]);
  });

  it('kills the terminal of a machine that sends past twice its window while paused', () => {
    const s = started();
    s.pty.pause();
    for (let sent = 0; sent <= 2 * OUTPUT_WINDOW_BYTES; sent += MAX_OUTPUT_CHUNK_BYTES)
      s.output(MAX_OUTPUT_CHUNK_BYTES);
    expect(s.requests.at(-1)).toEqual({ method: 'pty.kill', params: { ptyId: 'pty_1', signal: 'SIGKILL' } });
    expect(s.exits).toEqual([{ code: null, signal: 'SIGKILL' }]);
  });

  it('ends when the link drops, handing on what arrived first, and sends nothing after', () => {
    const s = started();
    s.pty.pause();
    s.output(7);
    s.link.close('unavailable', 'gone');
    expect(s.data).toEqual([7]);
    expect(s.exits).toEqual([{ code: null, signal: null }]);
    s.pty.write(new Uint8Array(3));
    s.pty.kill('SIGHUP');
    expect(s.requests).toEqual([]);
  });

  it('counts input in flight as pending until the machine takes it', async () => {
    const s = started();
    s.pty.write(new TextEncoder().encode('ls\n'));
    expect(s.pty.pendingInput()).toBe(3);
    await new Promise((r) => setTimeout(r, 0));
    expect(s.pty.pendingInput()).toBe(0);
    expect(s.requests[0]).toMatchObject({ method: 'pty.write', params: { ptyId: 'pty_1' } });
  });
});

describe('terminals on a machine, from the host', () => {
  it('refuses an answer that is not a terminal, and kills what it may have started', async () => {
    const hand = handLink((method) => (method === 'pty.spawn' ? ok({ shell: 5 }) : ok({})));
    const channel = new MachineChannel('m1', 'laptop', new ManualClock(), 60_000);
    channel.attach(hand.link);
    const terminals = new RemoteTerminals(channel, new ManualClock(), (prefix) => `${prefix}_1`);
    expect(await terminals.open({ cols: 80, rows: 24 })).toMatchObject({ ok: false, error: { code: 'io' } });
    expect(hand.requests.map((r) => r.method)).toEqual(['pty.spawn', 'pty.kill']);
  });

  it('passes the machine’s refusal on with its code', async () => {
    const hand = handLink(() => ({ ok: false, error: { code: 'outside-root', message: '/etc is outside' } }));
    const channel = new MachineChannel('m1', 'laptop', new ManualClock(), 60_000);
    channel.attach(hand.link);
    const terminals = new RemoteTerminals(channel, new ManualClock(), (prefix) => `${prefix}_1`);
    expect(await terminals.open({ cwd: '/etc', cols: 80, rows: 24 })).toEqual({
      ok: false,
      error: { code: 'outside-root', message: '/etc is outside' },
    });
  });
});
