import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { Busy } from './keep-awake.js';
import { KEEP_AWAKE_CHECK_MS, KeepAwake } from './keep-awake.js';
import type { InhibitorCommand, RunningInhibitor } from './sleep-inhibitor.js';
import { inhibitorFor } from './sleep-inhibitor.js';

const COMMAND: InhibitorCommand = { tool: 'systemd-inhibit', file: 'systemd-inhibit', args: [] };

function setup(options: { enabled?: boolean; command?: InhibitorCommand | string } = {}) {
  const clock = new ManualClock();
  let busy: Busy = { activeRuns: 0, attachedTerminals: 0 };
  const started: { stopped: boolean; end: (why: string) => void }[] = [];
  const changes: string[] = [];
  const keep = new KeepAwake({
    enabled: options.enabled ?? true,
    command: options.command ?? COMMAND,
    spawner: () => {
      const listeners: ((why: string) => void)[] = [];
      const entry = { stopped: false, end: (why: string) => listeners.forEach((l) => l(why)) };
      started.push(entry);
      const running: RunningInhibitor = {
        pid: 1234,
        stop: () => (entry.stopped = true),
        onEnd: (listener) => listeners.push(listener),
      };
      return running;
    },
    busy: () => busy,
    clock,
    onChange: (status) => changes.push(`${status.state}: ${status.message}`),
  });
  return {
    clock,
    keep,
    changes,
    started,
    setBusy: (next: Partial<Busy>) => (busy = { ...busy, ...next }),
    held: () => started.filter((s) => !s.stopped).length,
  };
}

describe('keeping the computer awake', () => {
  it('holds an inhibitor while a run is active or a terminal attached, and lets go when idle', () => {
    const t = setup();
    t.keep.start();
    expect(t.keep.status().state).toBe('idle');
    expect(t.started).toHaveLength(0);

    t.setBusy({ activeRuns: 1 });
    t.clock.advance(KEEP_AWAKE_CHECK_MS);
    expect(t.held()).toBe(1);
    expect(t.keep.status()).toMatchObject({ state: 'holding', tool: 'systemd-inhibit', message: '1 run active' });

    // The run ends but a terminal is attached: still held, by the same inhibitor.
    t.setBusy({ activeRuns: 0, attachedTerminals: 2 });
    t.clock.advance(KEEP_AWAKE_CHECK_MS);
    expect(t.started).toHaveLength(1);
    expect(t.held()).toBe(1);

    t.setBusy({ attachedTerminals: 0 });
    t.clock.advance(KEEP_AWAKE_CHECK_MS);
    expect(t.held()).toBe(0);
    expect(t.keep.status().state).toBe('idle');

    t.setBusy({ activeRuns: 1 });
    t.keep.check();
    expect(t.started).toHaveLength(2);
    t.keep.stop();
    expect(t.held()).toBe(0);
  });

  it('tells each change of state, and only a change, to whoever listens (the devices)', () => {
    const t = setup();
    t.keep.start();
    t.setBusy({ activeRuns: 1 });
    t.keep.sessionStatus('running');
    t.keep.sessionStatus('running');
    t.clock.advance(KEEP_AWAKE_CHECK_MS * 2);
    t.started[0]!.end('systemd-inhibit ended (exit 1): Failed to connect to bus');
    expect(t.changes).toEqual([
      'holding: 1 run active',
      'unavailable: systemd-inhibit ended (exit 1): Failed to connect to bus',
    ]);
    t.setBusy({ activeRuns: 0 });
    t.clock.advance(KEEP_AWAKE_CHECK_MS * 2);
    expect(t.changes).toHaveLength(2);
  });

  it('with --no-keep-awake holds nothing, and says so', () => {
    const t = setup({ enabled: false });
    t.setBusy({ activeRuns: 3 });
    t.keep.start();
    t.clock.advance(KEEP_AWAKE_CHECK_MS * 3);
    expect(t.started).toHaveLength(0);
    expect(t.keep.status()).toMatchObject({ state: 'off' });
  });

  it('reports a platform without an inhibitor, and one that fails, without failing the host or retrying', () => {
    const none = setup({ command: 'no sleep inhibitor is known on aix' });
    none.setBusy({ activeRuns: 1 });
    none.keep.start();
    expect(none.started).toHaveLength(0);
    expect(none.keep.status()).toMatchObject({ state: 'unavailable', message: 'no sleep inhibitor is known on aix' });

    const failing = setup();
    failing.setBusy({ activeRuns: 1 });
    failing.keep.start();
    failing.started[0]!.end('systemd-inhibit ended (exit 1): Failed to connect to bus');
    expect(failing.keep.status().state).toBe('unavailable');
    expect(failing.keep.status().message).toContain('Failed to connect to bus');
    failing.clock.advance(KEEP_AWAKE_CHECK_MS * 3);
    expect(failing.started).toHaveLength(1);
  });

  it('names the inhibitor for Linux and macOS, each ending with the host', () => {
    const linux = inhibitorFor('linux', 42);
    expect(typeof linux !== 'string' && linux.file).toBe('systemd-inhibit');
    expect(typeof linux !== 'string' && linux.args).toContain('--pid=42');
    expect(inhibitorFor('darwin', 42)).toMatchObject({ file: 'caffeinate', args: ['-i', '-w', '42'] });
    expect(inhibitorFor('win32', 42)).toBe('no sleep inhibitor is known on win32');
  });
});
