import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { TetherEvent } from '@tether/shared-protocol';
import type { PtyPort } from '@tether/machine';
import { FakePtyPort } from '@tether/machine/testing';
import {
  MAX_MACHINE_PTYS,
  OUTPUT_WINDOW_BYTES,
  TERMINAL_WINDOW_BYTES,
  ok,
  terminalOutputBytes,
} from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayHarness } from '../../test/support/gateway-harness.js';
import { terminalHandlers } from '../rpc/terminal-handlers.js';
import { FRAME_WAIT_MS } from '../streams/stream-subscription.js';
import { TerminalManager } from '../terminals/terminal-manager.js';
import type { MachineKit } from './testing/machine-kit.js';
import { machineKit } from './testing/machine-kit.js';

let kit: MachineKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

type Phone = Awaited<ReturnType<ReturnType<typeof gatewayHarness>['connect']>>;

/** A host's terminal manager placing terminals as host.ts does, a phone, and a linked machine. */
async function setup(machineOptions: { pty?: PtyPort; maxPtys?: number } = {}) {
  // The dispatch reads handlers when a request comes; they are filled in once the manager exists.
  const handlers: Parameters<typeof gatewayHarness>[0] = {};
  const h = gatewayHarness(handlers);
  kit = machineKit({ clock: h.clock });
  const registry = kit.registry;
  let ids = 0;
  const manager = new TerminalManager({
    clock: h.clock,
    newId: (prefix) => `${prefix}_${++ids}`,
    place: (machine) => (machine === 'local' ? ok(undefined as never) : registry.terminals(machine)),
  });
  Object.assign(handlers, terminalHandlers(manager));
  const machine = kit.machine({ token: kit.tokens.create('laptop', 0).token, ...machineOptions });
  await machine.reached('linked');
  const phone = await h.connect();
  return { h, manager, machine, phone };
}

/** Everything a phone was sent of a terminal's output, checked to be contiguous. */
function output(phone: Phone, terminalId: string): string {
  let at = 0;
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

/** Waits (a bounded number of turns, not a time) for a real shell on the machine to get there:
 * generous, since a login shell on a loaded machine takes seconds to start. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`never: ${what}`);
}

/** A device request, answered after the machine's round trip. */
async function request(phone: Phone, id: number, method: string, params: unknown) {
  phone.channel.send({ t: 'req', id, method, params });
  let answer: (typeof phone.received)[number] | undefined;
  await until(() => (answer = phone.received.find((m) => m.t === 'res' && m.id === id)) !== undefined, method);
  return answer as { t: 'res'; id: number; result?: unknown; error?: { code: string } };
}

// Real login shells on a loaded machine: more time than the default per test.
describe('a terminal on a machine', { timeout: 60_000 }, () => {
  it('opens, takes input and streams output through the device methods', async () => {
    const { machine, phone } = await setup();
    const opened = await request(phone, 1, 'terminals.open', { machine: 'laptop', cols: 80, rows: 24 });
    expect(opened).toMatchObject({ result: { terminal: { machine: 'laptop', cwd: machine.root } } });
    const id = (opened.result as { terminalId: string }).terminalId;
    expect((await request(phone, 2, 'terminals.attach', { terminalId: id, after: 0 })).error).toBeUndefined();
    const input = await request(phone, 3, 'terminals.input', { terminalId: id, data: 'echo "dev-$((2*21))"\n' });
    expect(input.error).toBeUndefined();
    await until(() => output(phone, id).includes('dev-42'), 'the echo reached the device');
    expect((await request(phone, 4, 'terminals.close', { terminalId: id })).error).toBeUndefined();
    await until(() => machine.executor.ptys.count === 0, 'the shell on the machine ended');
  });

  it('runs the machine’s shell in its folder: input, output, resize and close', async () => {
    const { manager, machine, phone } = await setup();
    mkdirSync(join(machine.root, 'project'));
    const opened = await manager.open({ machine: 'laptop', cwd: join(machine.root, 'project'), cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.error.message);
    const id = opened.value.id;
    expect(opened.value).toMatchObject({ machine: 'laptop', cwd: join(machine.root, 'project'), status: 'running' });
    expect(machine.executor.ptys.count).toBe(1);
    expect(manager.attach(id, phone.connection, 0).ok).toBe(true);

    // The marker is built by the shell, so the echoed input alone cannot match it.
    expect(manager.input(id, 'echo "mark-$((6*7))"; pwd\n').ok).toBe(true);
    await until(() => output(phone, id).includes('mark-42'), 'the echo came back');
    await until(() => output(phone, id).includes(join(machine.root, 'project')), 'pwd came back');

    expect(manager.resize(id, 100, 30).ok).toBe(true);
    manager.input(id, 'echo "size-$(stty size | tr " " x)"\n');
    await until(() => output(phone, id).includes('size-30x100'), 'the machine’s PTY was resized');
    expect(manager.list()[0]).toMatchObject({ cols: 100, rows: 30 });

    expect(manager.close(id).ok).toBe(true);
    await until(() => machine.executor.ptys.count === 0, 'the shell on the machine ended');
    expect(ofType(phone, 'terminal.detached')).toEqual([
      { type: 'terminal.detached', terminalId: id, reason: 'the terminal was closed' },
    ]);
    expect(manager.list()).toEqual([]);
  });

  it('ends with an exit the device sees when the shell exits on the machine', async () => {
    const { manager, machine, phone } = await setup();
    const opened = await manager.open({ machine: 'laptop', cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.error.message);
    expect(opened.value.cwd).toBe(machine.root);
    manager.attach(opened.value.id, phone.connection, 0);
    manager.input(opened.value.id, 'exit 3\n');
    await until(() => ofType(phone, 'terminal.exit').length > 0, 'terminal.exit');
    expect(ofType(phone, 'terminal.exit')[0]).toMatchObject({ terminalId: opened.value.id, code: 3 });
    expect(machine.executor.ptys.count).toBe(0);
  });

  it('is refused outside the machine’s shared folders, even through a link, and for unknown or offline machines', async () => {
    const { manager, machine } = await setup();
    expect(await manager.open({ machine: 'laptop', cwd: '/etc', cols: 80, rows: 24 })).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    expect(await manager.open({ machine: 'laptop', cwd: '../..', cols: 80, rows: 24 })).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    symlinkSync('/etc', join(machine.root, 'out'));
    expect(await manager.open({ machine: 'laptop', cwd: join(machine.root, 'out'), cols: 80, rows: 24 })).toMatchObject(
      { ok: false, error: { code: 'forbidden' } },
    );
    expect(
      await manager.open({ machine: 'laptop', cwd: join(machine.root, 'nope'), cols: 80, rows: 24 }),
    ).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
    expect(machine.executor.ptys.count).toBe(0);
    expect(await manager.open({ machine: 'desktop', cols: 80, rows: 24 })).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
    await machine.stop();
    expect(await manager.open({ machine: 'laptop', cols: 80, rows: 24 })).toMatchObject({
      ok: false,
      error: { code: 'unavailable', message: 'laptop is offline' },
    });
  });

  it('ends its terminals when the machine drops: the device sees the exit, the shell is killed there', async () => {
    const { manager, machine, phone } = await setup();
    const opened = await manager.open({ machine: 'laptop', cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.error.message);
    const id = opened.value.id;
    manager.attach(id, phone.connection, 0);
    manager.input(id, 'echo "up-$((1+1))"\n');
    await until(() => output(phone, id).includes('up-2'), 'the shell answered');
    await machine.stop();
    await until(() => ofType(phone, 'terminal.exit').length > 0, 'terminal.exit');
    expect(ofType(phone, 'terminal.exit')[0]).toMatchObject({ terminalId: id, code: null });
    expect(manager.list()[0]).toMatchObject({ id, status: 'exited' });
    expect(machine.executor.ptys.count).toBe(0);
    expect(manager.input(id, 'echo late\n')).toMatchObject({ ok: false });
  });

  it('keeps at most MAX_MACHINE_PTYS open on one machine', async () => {
    const { manager } = await setup({ maxPtys: 1 });
    const first = await manager.open({ machine: 'laptop', cols: 80, rows: 24 });
    expect(first.ok).toBe(true);
    expect(await manager.open({ machine: 'laptop', cols: 80, rows: 24 })).toMatchObject({
      ok: false,
      error: { code: 'busy' },
    });
    expect(MAX_MACHINE_PTYS).toBeGreaterThan(1);
    if (first.ok) manager.close(first.value.id);
  });

  it('goes on past a device that does not acknowledge, which gets the screen instead, with the link pacing the program', async () => {
    const port = new FakePtyPort();
    const { h, manager, phone } = await setup({ pty: port });
    const opened = await manager.open({ machine: 'laptop', cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.error.message);
    const id = opened.value.id;
    manager.attach(id, phone.connection, 0);
    const pty = port.last;
    expect(pty.request).toMatchObject({ args: ['-l'], cwd: kit!.base + '/laptop' });
    expect(pty.request.env.TERM).toBe('xterm-256color');
    // The program writes whenever its PTY is read, as a real one does: far more than the
    // device's window and the machine's window together.
    const total = TERMINAL_WINDOW_BYTES + 3 * OUTPUT_WINDOW_BYTES;
    const piece = 64 * 1024;
    let sent = 0;
    const produce = () => {
      for (; sent < total && !pty.paused; sent += piece) pty.emit('z'.repeat(piece));
    };
    produce();
    // The link's window holds it until the host has taken what is in flight...
    expect(pty.paused).toBe(true);
    expect(sent).toBeLessThan(total);
    // ...and the host takes it all though the device acknowledges nothing.
    for (let i = 0; i < 3000 && sent < total; i++) {
      produce();
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(sent).toBe(total);
    await until(() => manager.handle(id)!.end === total, 'the host took it all');
    // The device got a window of bytes, then the screen, up to the end.
    for (let i = 0; i < 100 && ofType(phone, 'terminal.screen').at(-1)?.offset !== total; i++) {
      h.clock.advance(FRAME_WAIT_MS);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(ofType(phone, 'terminal.screen').at(-1)).toMatchObject({ offset: total, cols: 80, rows: 24 });
    expect(output(phone, id).length).toBe(TERMINAL_WINDOW_BYTES);
  });
});
