import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { MachineChannel, NOT_SENT_INTERRUPTED } from './machine-channel.js';
import type { MachineLink } from './machine-link.js';

/** A link whose replies the test gives by hand, and that it can cut mid-call. */
class HandLink implements MachineLink {
  readonly sent: { method: string; params: unknown; reply: (r: Result<unknown>) => void }[] = [];
  closed = false;
  private readonly closeListeners: (() => void)[] = [];
  request(method: string, params: unknown): Promise<Result<unknown>> {
    if (this.closed) return Promise.resolve(fail('disconnected', 'closed'));
    return new Promise((reply) => this.sent.push({ method, params, reply }));
  }
  notify(): boolean {
    return !this.closed;
  }
  close(): void {
    this.cut();
  }
  onEvent(): void {}
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }
  cut(): void {
    if (this.closed) return;
    this.closed = true;
    for (const call of this.sent) call.reply(fail('disconnected', 'the link closed'));
    for (const listener of this.closeListeners) listener();
  }
}

const WAIT_MS = 15 * 60_000;
const run = (command: string) => ({ callId: 'x_1', command, cwd: '/r', timeoutMs: 1000, maxOutputBytes: 1000 });
const RAN = {
  exitCode: 0,
  signal: null,
  output: '',
  droppedBytes: 0,
  timedOut: false,
  aborted: false,
  durationMs: 5,
};
const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

function setup() {
  const clock = new ManualClock();
  const channel = new MachineChannel('m_1', 'laptop', clock, WAIT_MS);
  const said: string[] = [];
  const options = (signal?: AbortSignal) => ({
    wait: true,
    ...(signal ? { signal } : {}),
    onWaiting: () => said.push('waiting'),
    onResumed: () => said.push('back'),
  });
  return { clock, channel, said, options };
}

describe('offline semantics of a machine channel', () => {
  it('a call made while the machine is offline waits, then goes out when it is back', async () => {
    const { channel, said, options } = setup();
    const pending = channel.call('exec.run', run('make'), options());
    await flush();
    expect(said).toEqual(['waiting']);
    const link = new HandLink();
    channel.attach(link);
    await flush();
    expect(link.sent.map((s) => s.method)).toEqual(['exec.run']);
    expect(said).toEqual(['waiting', 'back']);
    link.sent[0]!.reply(ok(RAN));
    expect(await pending).toEqual({ ok: true, value: RAN });
  });

  it('gives up after the wait setting, and the run is told to stop', async () => {
    const { clock, channel, options } = setup();
    const pending = channel.call('fs.read', { root: '/r', path: 'a', maxBytes: 10 }, options());
    await flush();
    clock.advance(WAIT_MS - 1);
    await flush();
    let settled = false;
    void pending.then(() => (settled = true));
    await flush();
    expect(settled).toBe(false);
    clock.advance(1);
    const result = await pending;
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'unreachable', message: 'laptop stayed offline for 15 min; the run stopped' },
    });
  });

  it('a call sent and cut off is "result lost" (for the model), never sent again', async () => {
    const { channel, options } = setup();
    const link = new HandLink();
    channel.attach(link);
    const pending = channel.call('exec.run', run('make deploy'), options());
    await flush();
    link.cut();
    const result = await pending;
    expect(result.ok ? '' : result.error.code).toBe('io');
    expect(result.ok ? '' : result.error.message).toMatch(/^result lost: laptop disconnected during the call/);
    const again = new HandLink();
    channel.attach(again);
    await flush();
    expect(again.sent).toEqual([]);
  });

  it('an idempotent call cut off is sent again once the machine is back', async () => {
    const { channel, said, options } = setup();
    const first = new HandLink();
    channel.attach(first);
    const pending = channel.call('fs.read', { root: '/r', path: 'a.txt', maxBytes: 10 }, options());
    await flush();
    first.cut();
    await flush();
    expect(said).toEqual(['waiting']);
    const second = new HandLink();
    channel.attach(second);
    await flush();
    expect(second.sent.map((s) => [s.method, s.params])).toEqual([
      ['fs.read', { root: '/r', path: 'a.txt', maxBytes: 10 }],
    ]);
    const body = new TextEncoder().encode('hi');
    second.sent[0]!.reply(ok({ body, size: 2 }));
    expect(await pending).toEqual({ ok: true, value: { body, size: 2 } });
  });

  it('an interrupt while waiting drops the call unsent', async () => {
    const { channel, options } = setup();
    const controller = new AbortController();
    const pending = channel.call('fs.write', { root: '/r', path: 'a', text: 'x' }, options(controller.signal));
    await flush();
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: 'unreachable', message: NOT_SENT_INTERRUPTED } });
    const link = new HandLink();
    channel.attach(link);
    await flush();
    expect(link.sent).toEqual([]);
  });

  it('answers at once when not bound to a run, and fails waiting calls when the host stops', async () => {
    const { channel, options } = setup();
    expect(await channel.call('fs.checkFolder', { path: '/r' }, { wait: false })).toMatchObject({
      ok: false,
      error: { code: 'unreachable', message: 'laptop is offline' },
    });
    const waiting = channel.call('fs.checkFolder', { path: '/r' }, options());
    await flush();
    channel.close();
    expect(await waiting).toMatchObject({ ok: false, error: { code: 'unreachable' } });
  });

  it("decodes a reply by its method's result schema, and fails one that does not match", async () => {
    const { channel, options } = setup();
    const link = new HandLink();
    channel.attach(link);
    const good = channel.call('fs.stat', { root: '/r', path: 'a' }, options());
    const bad = channel.call('fs.stat', { root: '/r', path: 'b' }, options());
    await flush();
    link.sent[0]!.reply(ok({ type: 'file', size: 3, modifiedAt: 1 }));
    link.sent[1]!.reply(ok({ type: 'symlink-to-anywhere', size: -1 }));
    expect(await good).toEqual({ ok: true, value: { type: 'file', size: 3, modifiedAt: 1 } });
    expect(await bad).toMatchObject({
      ok: false,
      error: { code: 'io', message: 'laptop answered fs.stat with something else' },
    });
  });

  it('a newer link replaces an older one, which is told why', () => {
    const { channel } = setup();
    const old = new HandLink();
    channel.attach(old);
    const newer = new HandLink();
    channel.attach(newer);
    expect(old.closed).toBe(true);
    expect(channel.online).toBe(true);
  });
});
