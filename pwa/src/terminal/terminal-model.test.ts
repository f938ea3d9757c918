import type { ClientState, MethodName, ProtocolError, Result, TetherEvent } from '@tether/shared-protocol';
import { TERMINAL_ACK_BYTES, ok, toBase64Url } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { TerminalClient, TerminalSink } from './terminal-model.js';
import { TerminalModel } from './terminal-model.js';

/** A client whose calls are recorded and answered by the test, and whose events it sends. */
class FakeClient {
  state: ClientState = { name: 'open' };
  readonly calls: { method: MethodName; params: Record<string, unknown>; answer: (r: Result<unknown>) => void }[] = [];
  private eventListeners = new Set<(event: TetherEvent) => void>();
  private stateListeners = new Set<(state: ClientState) => void>();

  call = ((method: MethodName, params: Record<string, unknown>) =>
    new Promise<Result<unknown>>((answer) => this.calls.push({ method, params, answer }))) as TerminalClient['call'];
  onEvent = (listener: (event: TetherEvent) => void) => {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  };
  onState = (listener: (state: ClientState) => void) => {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  };

  emit(event: TetherEvent): void {
    for (const listener of this.eventListeners) listener(event);
  }
  setState(state: ClientState): void {
    this.state = state;
    for (const listener of this.stateListeners) listener(state);
  }
  made(method: MethodName) {
    return this.calls.filter((c) => c.method === method);
  }
  answerAll(method: MethodName, result: Result<unknown>): void {
    for (const call of this.made(method)) call.answer(result);
  }
}

/** A screen that records what it was given and draws at once. */
class Recorder implements TerminalSink {
  text = '';
  resets = 0;
  write(data: Uint8Array, done: () => void): void {
    this.text += new TextDecoder().decode(data);
    done();
  }
  reset(): void {
    this.resets++;
    this.text = '';
  }
}

const output = (offset: number, text: string): TetherEvent => ({
  type: 'terminal.output',
  terminalId: 't1',
  offset,
  data: toBase64Url(new TextEncoder().encode(text)),
});
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const attached = ok({
  offset: 0,
  dropped: 0,
  terminal: {
    id: 't1',
    machine: 'local',
    cwd: '/',
    shell: '/bin/sh',
    cols: 80,
    rows: 24,
    createdAt: 0,
    attached: 1,
    end: 0,
    status: 'running',
    exitCode: null,
  },
});

function setup() {
  const client = new FakeClient();
  const clock = new ManualClock(0);
  const model = new TerminalModel(client, 't1', clock);
  const screen = new Recorder();
  model.setSink(screen);
  model.start();
  return { client, clock, model, screen };
}

describe('a terminal on the device', () => {
  it('attaches from nothing, draws output in order once, and is live', async () => {
    const { client, model, screen } = setup();
    expect(client.made('terminals.attach')[0]?.params).toEqual({ terminalId: 't1', after: 0, binary: true });
    client.answerAll('terminals.attach', attached);
    await flush();
    expect(model.status.get()).toEqual({ name: 'live' });
    client.emit(output(0, 'hello '));
    client.emit(output(0, 'hello ')); // a repeat after a reattach
    client.emit(output(3, 'lo world')); // an overlap
    expect(screen.text).toBe('hello world');
    expect(model.offset).toBe(11);
  });

  it('acknowledges what was drawn: at once past a quarter window, else shortly after', () => {
    const { client, clock, screen } = setup();
    void screen;
    client.emit(output(0, 'abc'));
    expect(client.made('terminals.ack')).toEqual([]);
    clock.advance(200);
    expect(client.made('terminals.ack').map((c) => c.params.offset)).toEqual([3]);
    client.emit(output(3, 'x'.repeat(TERMINAL_ACK_BYTES)));
    expect(client.made('terminals.ack').map((c) => c.params.offset)).toEqual([3, 3 + TERMINAL_ACK_BYTES]);
  });

  it('waits for a screen before acknowledging, and draws what came before it once it is there', () => {
    const client = new FakeClient();
    const clock = new ManualClock(0);
    const model = new TerminalModel(client, 't1', clock);
    model.start();
    client.emit(output(0, 'early'));
    clock.advance(1000);
    expect(client.made('terminals.ack')).toEqual([]);
    const screen = new Recorder();
    model.setSink(screen);
    expect(screen.text).toBe('early');
    clock.advance(200);
    expect(client.made('terminals.ack').map((c) => c.params.offset)).toEqual([5]);
  });

  it('shows "reconnecting" while the connection is down and reattaches from its offset', async () => {
    const { client, model, screen } = setup();
    client.answerAll('terminals.attach', attached);
    client.emit(output(0, 'before'));
    await flush();
    client.setState({ name: 'waiting', attempt: 0, retryAt: 0, error: { code: 'disconnected', message: '' } });
    expect(model.status.get().name).toBe('reconnecting');
    client.setState({ name: 'open' });
    expect(client.made('terminals.attach').at(-1)?.params).toEqual({ terminalId: 't1', after: 6, binary: true });
    client.emit(output(6, ' after'));
    client.answerAll('terminals.attach', attached);
    await flush();
    expect(model.status.get().name).toBe('live');
    expect(screen.text).toBe('before after');
  });

  it('draws the screen the host sends in place of what it no longer holds, and goes on from its offset', () => {
    const { client, model, screen } = setup();
    client.emit(output(0, 'old'));
    client.emit({
      type: 'terminal.screen',
      terminalId: 't1',
      offset: 5000,
      dropped: 4997,
      cols: 80,
      rows: 24,
      data: toBase64Url(new TextEncoder().encode('SCREEN')),
    });
    client.emit(output(5000, '+more'));
    expect(screen.resets).toBe(1);
    expect(screen.text).toBe('SCREEN+more');
    expect(model.offset).toBe(5005);
  });

  it('asks again from what it holds when output skips ahead', () => {
    const { client, screen } = setup();
    client.emit(output(0, 'ab'));
    client.emit(output(10, 'late'));
    expect(screen.text).toBe('ab');
    expect(client.made('terminals.attach').at(-1)?.params).toEqual({ terminalId: 't1', after: 2, binary: true });
  });

  it('reattaches when the host detached it, and says why meanwhile', () => {
    const { client, model } = setup();
    client.emit({ type: 'terminal.detached', terminalId: 't1', reason: 'no acknowledgement for 30 s' });
    expect(model.status.get()).toEqual({ name: 'reconnecting', reason: 'no acknowledgement for 30 s' });
    expect(client.made('terminals.attach')).toHaveLength(2);
  });

  it('is exited only once every byte before the exit was drawn', () => {
    const { client, model } = setup();
    client.emit({ type: 'terminal.exit', terminalId: 't1', code: 0, signal: null, offset: 4 });
    expect(model.status.get().name).not.toBe('exited');
    client.emit(output(0, 'bye!'));
    expect(model.status.get()).toEqual({ name: 'exited', code: 0, signal: null });
  });

  it('is exited once a screen reaches the exit, the last thing a device behind in a flood gets', () => {
    const { client, model, screen } = setup();
    client.emit(output(0, 'y\n'));
    client.emit({ type: 'terminal.exit', terminalId: 't1', code: 130, signal: null, offset: 90_000 });
    expect(model.status.get().name).not.toBe('exited');
    client.emit({
      type: 'terminal.screen',
      terminalId: 't1',
      offset: 90_000,
      dropped: 89_998,
      cols: 80,
      rows: 24,
      data: toBase64Url(new TextEncoder().encode('y\r\n^C\r\n$ ')),
    });
    expect(screen.text).toBe('y\r\n^C\r\n$ ');
    expect(model.status.get()).toEqual({ name: 'exited', code: 130, signal: null });
  });

  it('is gone when the host no longer has the terminal', async () => {
    const { client, model } = setup();
    const error: ProtocolError = { code: 'not-found', message: 'no terminal t1' };
    client.answerAll('terminals.attach', { ok: false, error });
    await flush();
    expect(model.status.get()).toEqual({ name: 'gone', error });
  });

  it('sends input in order, coalescing keys typed while a call is on its way, and bounds what waits', async () => {
    const { client, model } = setup();
    model.input('l');
    model.input('s');
    model.input('\r');
    expect(client.made('terminals.input').map((c) => c.params.data)).toEqual(['l']);
    client.answerAll('terminals.input', ok({}));
    await flush();
    expect(client.made('terminals.input').map((c) => c.params.data)).toEqual(['l', 's\r']);
    expect(model.input('x'.repeat(2 * 1024 * 1024))).toBe(false);
  });

  it('sends its size once per change, and again after a reattach', async () => {
    const { client, model } = setup();
    model.resize(100, 30);
    model.resize(100, 30);
    expect(client.made('terminals.resize')).toHaveLength(1);
    client.setState({ name: 'connecting', attempt: 0 });
    client.setState({ name: 'open' });
    client.answerAll('terminals.attach', attached);
    await flush();
    expect(client.made('terminals.resize')).toHaveLength(2);
  });
});
