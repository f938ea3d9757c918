import type { OpenTerminalRequest, TerminalPlace } from '@tether/machine';
import { Terminal } from '@tether/machine';
import { FakePtyPort } from '@tether/machine/testing';
import type { FakePty } from '@tether/machine/testing';
import type { TetherEvent } from '@tether/shared-protocol';
import { fail, fromBase64Url, ok, terminalOutputBytes } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { gatewayHarness, settle } from '../../test/support/gateway-harness.js';
import { terminalHandlers } from '../rpc/terminal-handlers.js';
import { TerminalManager } from './terminal-manager.js';

const WINDOW = 64;
const CHUNK = 16;
const STALL_MS = 30_000;
const IDLE_MS = 60_000;
const FRAME_MS = 40;

/** A place on fake PTYs with a small backlog, keeping each terminal for the test to drive. */
class FakePlace implements TerminalPlace {
  readonly place = 'local';
  readonly port = new FakePtyPort();
  readonly opened: Terminal[] = [];
  constructor(
    private readonly clock: ReturnType<typeof gatewayHarness>['clock'],
    private readonly backlogBytes: number,
  ) {}

  open(request: OpenTerminalRequest) {
    const spawned = this.port.spawn({ file: '/bin/sh', args: [], cwd: '/w', env: {}, ...request });
    if (!spawned.ok) throw new Error('spawn');
    const terminal = new Terminal(spawned.value, {
      shell: '/bin/sh',
      cwd: request.cwd ?? '/w',
      cols: request.cols,
      rows: request.rows,
      clock: this.clock,
      backlogBytes: this.backlogBytes,
    });
    this.opened.push(terminal);
    return Promise.resolve(ok(terminal));
  }

  get pty(): FakePty {
    return this.port.last;
  }
}

function setup(backlogBytes = 1024) {
  // The dispatch reads handlers when a request comes; they are filled in once the manager exists.
  const handlers: Parameters<typeof gatewayHarness>[0] = {};
  const h = gatewayHarness(handlers);
  const place = new FakePlace(h.clock, backlogBytes);
  let ids = 0;
  const manager = new TerminalManager({
    clock: h.clock,
    newId: (prefix) => `${prefix}_${++ids}`,
    place: (machine) => (machine === 'local' ? ok(place) : fail('unsupported', 'not here')),
    idleMs: IDLE_MS,
    windowBytes: WINDOW,
    chunkBytes: CHUNK,
    stallMs: STALL_MS,
    frameMs: FRAME_MS,
  });
  Object.assign(handlers, terminalHandlers(manager));
  return { h, place, manager };
}

type Phone = Awaited<ReturnType<ReturnType<typeof gatewayHarness>['connect']>>;

/** Output bytes a phone received for a terminal, checked to be contiguous from `from`. */
function output(phone: Phone, terminalId: string, from = 0): string {
  let at = from;
  let text = '';
  for (const event of phone.events()) {
    if (event.type !== 'terminal.output' || event.terminalId !== terminalId) continue;
    expect(event.offset).toBe(at);
    const data = terminalOutputBytes(event.data)!;
    at += data.length;
    text += new TextDecoder().decode(data);
  }
  return text;
}

const ofType = <T extends TetherEvent['type']>(phone: Phone, type: T) =>
  phone.events().filter((e): e is Extract<TetherEvent, { type: T }> => e.type === type);

describe('the terminal manager', () => {
  it('streams output to an attached device by offset, a window at a time, while it acknowledges', async () => {
    const { h, place, manager } = setup(4096);
    const phone = await h.connect();
    const opened = await manager.open({ cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.error.message);
    const id = opened.value.id;
    expect(manager.attach(id, phone.connection, 0)).toMatchObject({ ok: true, value: { offset: 0, dropped: 0 } });
    place.pty.emit('a'.repeat(WINDOW - CHUNK));
    await settle();
    expect(output(phone, id)).toHaveLength(WINDOW - CHUNK);
    expect(manager.ack(id, phone.connection, WINDOW - CHUNK).ok).toBe(true);
    place.pty.emit('a'.repeat(WINDOW - CHUNK));
    await settle();
    manager.ack(id, phone.connection, WINDOW);
    manager.ack(id, phone.connection, CHUNK); // late and repeated acknowledgements change nothing
    place.pty.emit('a'.repeat(CHUNK * 2));
    await settle();
    expect(output(phone, id)).toHaveLength(WINDOW * 2);
    expect(ofType(phone, 'terminal.screen')).toEqual([]);
    expect(place.pty.paused).toBe(false);
  });

  it('sends a device a window behind the screen at the frame rate instead, holds nothing back, and bytes again once it caught up', async () => {
    const { h, place, manager } = setup(4096);
    const phone = await h.connect();
    const opened = await manager.open({ cols: 80, rows: 24 });
    const id = opened.ok ? opened.value.id : '';
    manager.attach(id, phone.connection, 0);
    place.pty.emit('a'.repeat(WINDOW * 3));
    await place.opened[0]!.settled();
    await settle();
    expect(output(phone, id)).toHaveLength(WINDOW);
    expect(place.pty.paused).toBe(false);
    h.clock.advance(FRAME_MS);
    await settle();
    const [screen] = ofType(phone, 'terminal.screen');
    expect(screen).toMatchObject({ terminalId: id, offset: WINDOW * 3, dropped: WINDOW * 2, cols: 80, rows: 24 });
    expect(new TextDecoder().decode(fromBase64Url(screen!.data))).toContain('a'.repeat(80));
    // Drawn and acknowledged; the program writes a little: bytes again, from the screen's offset.
    manager.ack(id, phone.connection, WINDOW * 3);
    place.pty.emit('tail');
    await place.opened[0]!.settled();
    h.clock.advance(FRAME_MS);
    await settle();
    expect(phone.events().at(-1)).toMatchObject({ type: 'terminal.output', offset: WINDOW * 3 });
    expect(ofType(phone, 'terminal.screen')).toHaveLength(1);
  });

  it('sends a device that asked for binary its output as binary messages: the same bytes, offsets and window', async () => {
    const { h, place, manager } = setup(4096);
    const phone = await h.connect();
    const opened = await manager.open({ cols: 80, rows: 24 });
    const id = opened.ok ? opened.value.id : '';
    expect(manager.attach(id, phone.connection, 0, false, true).ok).toBe(true);
    const TEXT = '\x1b[1mhello\x1b[0m '.repeat(10);
    place.pty.emit(TEXT);
    await settle();
    const outputs = ofType(phone, 'terminal.output');
    // Bytes as they are (a JSON event could only carry text), in chunks, a window at a time.
    expect(outputs.length).toBe(WINDOW / CHUNK);
    expect(outputs.every((e) => e.data instanceof Uint8Array && e.data.length === CHUNK)).toBe(true);
    expect(output(phone, id)).toBe(TEXT.slice(0, WINDOW));
  });

  it('holds neither the program nor a fast device back for a slow one', async () => {
    const { h, place, manager } = setup(4096);
    const fast = await h.connect();
    const slow = await h.connect();
    const opened = await manager.open({ cols: 80, rows: 24 });
    const id = opened.ok ? opened.value.id : '';
    manager.attach(id, fast.connection, 0);
    manager.attach(id, slow.connection, 0);
    place.pty.emit('b'.repeat(WINDOW));
    await settle();
    manager.ack(id, fast.connection, WINDOW);
    place.pty.emit('b'.repeat(WINDOW));
    await place.opened[0]!.settled();
    await settle();
    expect(place.pty.paused).toBe(false);
    expect(output(fast, id)).toHaveLength(WINDOW * 2);
    expect(output(slow, id)).toHaveLength(WINDOW);
    h.clock.advance(FRAME_MS);
    await settle();
    expect(ofType(slow, 'terminal.screen')).toMatchObject([{ offset: WINDOW * 2 }]);
    expect(ofType(fast, 'terminal.screen')).toEqual([]);
    manager.detach(id, slow.connection);
    expect(manager.list()[0]).toMatchObject({ attached: 1 });
  });

  it('detaches a device that stops acknowledging, with a reason, and its session watch goes on', async () => {
    const { h, place, manager } = setup(4096);
    h.session('s1');
    const phone = await h.connect();
    phone.connection.watch('s1', 0);
    const opened = await manager.open({ cols: 80, rows: 24 });
    const id = opened.ok ? opened.value.id : '';
    manager.attach(id, phone.connection, 0);
    place.pty.emit('c'.repeat(WINDOW * 4));
    await place.opened[0]!.settled();
    await settle();
    h.clock.advance(STALL_MS - 1);
    await settle();
    expect(ofType(phone, 'terminal.detached')).toEqual([]);
    h.clock.advance(1);
    await settle();
    expect(ofType(phone, 'terminal.detached')).toEqual([
      { type: 'terminal.detached', terminalId: id, reason: 'no acknowledgement for 30 s' },
    ]);
    // It got the screen once a second meanwhile (it drew none of them); none after.
    expect(ofType(phone, 'terminal.screen').length).toBeGreaterThan(0);
    expect(manager.ack(id, phone.connection, WINDOW)).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(phone.connection.isClosed).toBe(false);
    h.log.append('s1', { type: 'notice', level: 'info', text: 'still watched' });
    await settle();
    expect(phone.events().at(-1)).toMatchObject({ type: 'notice', text: 'still watched' });
    // Attaching again picks up where it was.
    expect(manager.attach(id, phone.connection, WINDOW)).toMatchObject({ ok: true, value: { offset: WINDOW } });
  });

  it('replays from an offset the backlog still holds, with nothing doubled', async () => {
    const { h, place, manager } = setup();
    const opened = await manager.open({ cols: 80, rows: 24 });
    const id = opened.ok ? opened.value.id : '';
    place.pty.emit('hello world');
    const phone = await h.connect();
    expect(manager.attach(id, phone.connection, 6)).toMatchObject({ ok: true, value: { offset: 6, dropped: 0 } });
    await settle();
    expect(ofType(phone, 'terminal.screen')).toEqual([]);
    expect(output(phone, id, 6)).toBe('world');
  });

  it('sends the current screen, and how much was dropped, to a device whose offset fell out of the backlog', async () => {
    const { h, place, manager } = setup(64);
    const opened = await manager.open({ cols: 20, rows: 3 });
    const id = opened.ok ? opened.value.id : '';
    place.pty.emit('line one\r\nline two\r\n');
    place.pty.emit(`\x1b[2J\x1b[Htop screen${' '.repeat(70)}`);
    await place.opened[0]!.settled();
    const end = place.opened[0]!.end;
    const phone = await h.connect();
    const attached = manager.attach(id, phone.connection, 5);
    expect(attached).toMatchObject({ ok: true, value: { offset: end, dropped: end - 5 } });
    place.pty.emit('!');
    await settle();
    const [screen] = ofType(phone, 'terminal.screen');
    expect(screen).toMatchObject({ terminalId: id, offset: end, dropped: end - 5, cols: 20, rows: 3 });
    expect(new TextDecoder().decode(fromBase64Url(screen!.data))).toContain('top screen');
    // The screen comes before the output that follows it, which starts at its offset.
    const kinds = phone
      .events()
      .filter((e) => e.type.startsWith('terminal.'))
      .map((e) => e.type);
    expect(kinds).toEqual(['terminal.screen', 'terminal.output']);
    expect(output(phone, id, end)).toBe('!');
  });

  it('tells attached devices when the program ended, after its last output, and replays both to a device that attaches later', async () => {
    const { h, place, manager } = setup();
    const phone = await h.connect();
    const opened = await manager.open({ cols: 80, rows: 24 });
    const id = opened.ok ? opened.value.id : '';
    manager.attach(id, phone.connection, 0);
    place.pty.emit('bye\r\n');
    place.pty.exit({ code: 0, signal: null });
    await settle();
    expect(ofType(phone, 'terminal.exit')).toEqual([
      { type: 'terminal.exit', terminalId: id, code: 0, signal: null, offset: 5 },
    ]);
    expect(manager.list()[0]).toMatchObject({ status: 'exited', exitCode: 0 });
    const later = await h.connect();
    manager.attach(id, later.connection, 0);
    await settle();
    expect(output(later, id)).toBe('bye\r\n');
    expect(ofType(later, 'terminal.exit')).toHaveLength(1);
    expect(manager.input(id, 'ls\r')).toMatchObject({ ok: false, error: { code: 'conflict' } });
  });

  it('keeps a terminal past its device disconnecting, and closes it once nobody was attached for the idle time', async () => {
    const { h, place, manager } = setup();
    const opened = await manager.open({ cols: 80, rows: 24 });
    const id = opened.ok ? opened.value.id : '';
    h.clock.advance(IDLE_MS - 1);
    const phone = await h.connect();
    manager.attach(id, phone.connection, 0);
    h.clock.advance(IDLE_MS * 10);
    expect(manager.list()).toHaveLength(1);
    phone.transport.close(1000, 'gone');
    await settle();
    expect(manager.list()[0]).toMatchObject({ attached: 0 });
    h.clock.advance(IDLE_MS - 1);
    expect(manager.list()).toHaveLength(1);
    h.clock.advance(1);
    expect(manager.list()).toHaveLength(0);
    expect(place.pty.signals).toEqual(['SIGHUP']);
  });

  it('holds no timer for a kept terminal whose program ends after it was let go (the host stopping)', async () => {
    const { h, place, manager } = setup();
    const timers = h.clock.pendingTimers;
    const opened = await place.open({ cols: 80, rows: 24 });
    if (!opened.ok) throw new Error('open');
    let removed = 0;
    manager.add(opened.value, 'local', { sessionId: 's_1', keep: true, onRemoved: () => removed++ });
    manager.closeAll();
    expect(place.pty.signals).toEqual(['SIGHUP']);
    // The program goes once hung up: nothing may be left waiting, or a stopping host never exits.
    place.pty.exit({ code: null, signal: 'SIGHUP' });
    expect(removed).toBe(1);
    expect(h.clock.pendingTimers).toBe(timers);
    expect(manager.list()).toEqual([]);
  });

  it('closes a terminal on request: attached devices are told, the program is hung up, and closing again is fine', async () => {
    const { h, place, manager } = setup();
    const phone = await h.connect();
    const opened = await manager.open({ cols: 80, rows: 24 });
    const id = opened.ok ? opened.value.id : '';
    manager.attach(id, phone.connection, 0);
    expect(manager.close(id).ok).toBe(true);
    expect(manager.close(id).ok).toBe(true);
    await settle();
    expect(ofType(phone, 'terminal.detached')).toEqual([
      { type: 'terminal.detached', terminalId: id, reason: 'the terminal was closed' },
    ]);
    expect(phone.connection.subscription(`terminal:${id}`)).toBeUndefined();
    expect(place.pty.signals).toEqual(['SIGHUP']);
    expect(manager.attach(id, phone.connection, 0)).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(manager.input(id, 'x')).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });

  it('passes input and size to the program', async () => {
    const { place, manager } = setup();
    const opened = await manager.open({ cols: 80, rows: 24 });
    const id = opened.ok ? opened.value.id : '';
    expect(manager.input(id, 'echo hi\r').ok).toBe(true);
    expect(manager.resize(id, 100, 40).ok).toBe(true);
    expect(place.pty.inputText()).toBe('echo hi\r');
    expect([place.pty.cols, place.pty.rows]).toEqual([100, 40]);
    expect(manager.list()[0]).toMatchObject({ cols: 100, rows: 40 });
  });

  it('refuses a terminal on a place it cannot open on', async () => {
    const { manager } = setup();
    expect(await manager.open({ machine: 'laptop', cols: 80, rows: 24 })).toMatchObject({
      ok: false,
      error: { code: 'unsupported' },
    });
  });
});

describe('terminal methods over a device connection', () => {
  it('need the terminal scope, and stream to the device that attached', async () => {
    const { h, place } = setup();
    const watcher = await h.connect(['watch']);
    expect(await watcher.request('terminals.open', { cols: 80, rows: 24 })).toMatchObject({
      error: { code: 'forbidden' },
    });
    const phone = await h.connect();
    const opened = await phone.request('terminals.open', { cols: 80, rows: 24 });
    expect(opened).toMatchObject({ result: { terminalId: 't_1', terminal: { status: 'running', machine: 'local' } } });
    expect(await phone.request('terminals.attach', { terminalId: 't_1' })).toMatchObject({
      result: { offset: 0, dropped: 0 },
    });
    place.pty.emit('$ ');
    await settle();
    expect(output(phone, 't_1')).toBe('$ ');
    expect(await phone.request('terminals.ack', { terminalId: 't_1', offset: 2 })).toMatchObject({ result: {} });
    expect(await phone.request('terminals.input', { terminalId: 't_1', data: 'ls\r' })).toMatchObject({ result: {} });
    expect(place.pty.inputText()).toBe('ls\r');
    expect(await phone.request('terminals.list', {})).toMatchObject({
      result: { terminals: [{ id: 't_1', attached: 1 }] },
    });
    expect(await phone.request('terminals.close', { terminalId: 't_1' })).toMatchObject({ result: {} });
    expect(await phone.request('terminals.list', {})).toMatchObject({ result: { terminals: [] } });
  });
});
