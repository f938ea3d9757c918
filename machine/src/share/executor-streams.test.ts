import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LinkPeer, MachineEvent } from '@tether/shared-protocol';
import {
  MAX_LIVE_STREAMS,
  OUTPUT_WINDOW_BYTES,
  decodeMachineEvent,
  fromBase64Url,
  toBase64Url,
} from '@tether/shared-protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { code, linkTo } from './testing/link-harness.js';
import { MachineExecutor } from './machine-executor.js';

let base: string;
let executor: MachineExecutor;
let host: LinkPeer;
let events: MachineEvent[];

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-streams-')));
  executor = new MachineExecutor({
    roots: [base],
    privates: [join(base, 'data')],
    tasksDir: join(base, 'data', 'tasks'),
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
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};
const outputOf = (procId: string) =>
  Buffer.concat(
    events.flatMap((e) =>
      e.type === 'proc.output' && e.procId === procId ? [Buffer.from(fromBase64Url(e.data)!)] : [],
    ),
  );

describe('live processes over the link', () => {
  it('streams stdin in and output out, then the exit after the output', async () => {
    expect(
      code(await host.request('proc.spawn', { procId: 'p1', command: { program: 'cat', args: [] }, cwd: base })),
    ).toBe('ok');
    expect(
      code(await host.request('proc.write', { procId: 'p1', data: toBase64Url(Buffer.from('hello machine\n')) })),
    ).toBe('ok');
    expect(code(await host.request('proc.closeInput', { procId: 'p1' }))).toBe('ok');
    await until(() => events.some((e) => e.type === 'proc.exit'), 'the exit');
    expect(outputOf('p1').toString()).toBe('hello machine\n');
    const last = events.filter((e) => 'procId' in e && e.procId === 'p1').at(-1);
    expect(last).toMatchObject({ type: 'proc.exit', code: 0 });
  });

  it('stops reading a process past the window until the host acknowledges', async () => {
    const total = 3 * OUTPUT_WINDOW_BYTES;
    const started = await host.request('proc.spawn', {
      procId: 'big',
      command: { program: 'head', args: ['-c', String(total), '/dev/zero'] },
      cwd: base,
    });
    expect(code(started)).toBe('ok');
    await until(() => outputOf('big').length >= OUTPUT_WINDOW_BYTES, 'a window of output');
    await new Promise((r) => setTimeout(r, 100));
    // Paused: no more than a window (plus the chunk that crossed it) and no exit yet.
    expect(outputOf('big').length).toBeLessThan(OUTPUT_WINDOW_BYTES + 256 * 1024);
    expect(events.some((e) => e.type === 'proc.exit')).toBe(false);
    // The host takes what it got, in steps; the process goes on to its end.
    while (!events.some((e) => e.type === 'proc.exit')) {
      host.notify({ type: 'proc.ack', procId: 'big', bytes: outputOf('big').length });
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(outputOf('big').length).toBe(total);
  });

  it(`refuses more than ${MAX_LIVE_STREAMS} live processes with busy`, async () => {
    for (let i = 0; i < MAX_LIVE_STREAMS; i++) {
      expect(
        code(
          await host.request('proc.spawn', { procId: `s${i}`, command: { program: 'sleep', args: ['30'] }, cwd: base }),
        ),
      ).toBe('ok');
    }
    const extra = await host.request('proc.spawn', {
      procId: 'one-more',
      command: { program: 'sleep', args: ['30'] },
      cwd: base,
    });
    expect(code(extra)).toBe('busy');
    expect(extra.ok ? '' : extra.error.message).toContain(String(MAX_LIVE_STREAMS));
    executor.detach();
  });

  it('kills live processes when the link drops', async () => {
    expect(
      code(await host.request('proc.spawn', { procId: 'k', command: { program: 'sleep', args: ['30'] }, cwd: base })),
    ).toBe('ok');
    expect(executor.processes.count).toBe(1);
    executor.detach();
    expect(executor.processes.count).toBe(0);
  });

  it('cancels a running command by its call id', async () => {
    const running = host.request('exec.run', {
      callId: 'long',
      command: 'sleep 30',
      cwd: base,
      timeoutMs: 60_000,
      maxOutputBytes: 1000,
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(code(await host.request('exec.cancel', { callId: 'long' }))).toBe('ok');
    const result = await running;
    expect(result.ok && (result.value as { aborted: boolean }).aborted).toBe(true);
  });
});

describe('background tasks over the link', () => {
  it('runs a task, logs its output, and reports its exit', async () => {
    const started = await host.request('tasks.start', { command: 'echo one; echo two >&2; exit 3', cwd: base });
    if (!started.ok) throw new Error(started.error.message);
    const taskId = (started.value as { task: { id: string } }).task.id;
    const waited = await host.request('tasks.wait', { taskId, timeoutMs: 10_000 });
    expect(waited.ok && waited.value).toMatchObject({ task: { state: 'exited', code: 3 } });
    const log = await host.request('tasks.read', { taskId, offset: 0, maxBytes: 1000 });
    const text = log.ok ? Buffer.from(fromBase64Url((log.value as { data: string }).data)!).toString() : '';
    expect(text.split('\n').sort()).toEqual(['', 'one', 'two']);
    await until(() => events.some((e) => e.type === 'task.exit'), 'the task exit');
  });

  it('keeps a task running across a disconnect and reports its exit after it', async () => {
    const started = await host.request('tasks.start', { command: 'sleep 0.3', cwd: base });
    if (!started.ok) throw new Error(started.error.message);
    const taskId = (started.value as { task: { id: string } }).task.id;
    executor.detach();
    await until(() => executor.tasks.list()[0]?.state === 'exited', 'the task to end');
    expect(events.some((e) => e.type === 'task.exit')).toBe(false);
    // A host links again: the exit queued while it was away goes to it.
    const seen: unknown[] = [];
    await linkTo(executor, (e) => seen.push(e));
    await until(() => seen.length > 0, 'the queued exit');
    expect(seen[0]).toMatchObject({ type: 'task.exit', task: { id: taskId, state: 'exited', code: 0 } });
  });

  it('caps a task log and counts what it left out', async () => {
    const capped = new MachineExecutor({ roots: [base], privates: [], tasksDir: join(base, 'capped') });
    const tasks = capped.tasks;
    (tasks as unknown as { options: { maxOutputBytes: number } }).options.maxOutputBytes = 1000;
    const started = await tasks.start('head -c 5000 /dev/zero', base);
    if (!started.ok) throw new Error(started.error.message);
    const done = await tasks.wait(started.value.task.id, 10_000);
    expect(done.ok && done.value.task).toMatchObject({ state: 'exited', outputBytes: 5000, droppedBytes: 4000 });
    const log = await tasks.read(started.value.task.id, 0, 10_000);
    expect(log.ok && log.value.total).toBe(1000);
    await capped.close();
  });
});
