import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { KILL_GRACE_MS } from '../process-group.js';
import { FakePtyPort } from './fake-pty.js';
import type { OutputReader } from './terminal.js';
import { MAX_PENDING_TERMINAL_INPUT, Terminal } from './terminal.js';
import { MAX_SCREEN_LAG_BYTES } from './terminal-screen.js';

function setup(backlogBytes = 64) {
  const clock = new ManualClock(0);
  const port = new FakePtyPort();
  const spawned = port.spawn({ file: '/bin/sh', args: [], cwd: '/', env: {}, cols: 20, rows: 5 });
  if (!spawned.ok) throw new Error('spawn');
  const pty = port.last;
  const terminal = new Terminal(spawned.value, { shell: '/bin/sh', cwd: '/', cols: 20, rows: 5, clock, backlogBytes });
  return { clock, pty, terminal };
}

class Reader implements OutputReader {
  notified = 0;
  notify(): void {
    this.notified++;
  }
}

const text = (data: Uint8Array | undefined) => (data ? new TextDecoder().decode(data) : '');

describe('a terminal', () => {
  it('keeps output by byte offset and tells its readers when more is there', () => {
    const { pty, terminal } = setup();
    const reader = new Reader();
    terminal.addReader(reader);
    pty.emit('héllo');
    expect(reader.notified).toBe(1);
    expect(terminal.end).toBe(6);
    expect(text(terminal.read(3, 100)?.data)).toBe('llo');
  });

  it('pauses the program while any reader is blocked, and resumes when the last one unblocks or leaves', () => {
    const { pty, terminal } = setup();
    const [a, b] = [new Reader(), new Reader()];
    terminal.addReader(a);
    terminal.addReader(b);
    terminal.setBlocked(a, true);
    terminal.setBlocked(b, true);
    expect(pty.paused).toBe(true);
    terminal.setBlocked(a, false);
    expect(pty.paused).toBe(true);
    terminal.release(b);
    expect(pty.paused).toBe(false);
  });

  it('does not let a reader that was never added, or has left, hold the program back', () => {
    const { pty, terminal } = setup();
    const stranger = new Reader();
    terminal.setBlocked(stranger, true);
    expect(pty.paused).toBe(false);
  });

  it('pauses the program while the screen model is far behind, and resumes once it caught up', async () => {
    const { pty, terminal } = setup(1024 * 1024);
    pty.emit(new Uint8Array(MAX_SCREEN_LAG_BYTES + 1).fill(0x61));
    expect(pty.paused).toBe(true);
    await terminal.settled();
    expect(pty.paused).toBe(false);
  });

  it('refuses input to a program that stopped reading past the bound, and to one that ended', () => {
    const { pty, terminal } = setup();
    expect(terminal.write('ls\r').ok).toBe(true);
    expect(pty.inputText()).toBe('ls\r');
    pty.pending = MAX_PENDING_TERMINAL_INPUT - 2;
    expect(terminal.write('abc')).toMatchObject({ ok: false, error: { code: 'busy' } });
    pty.exit({ code: 0, signal: null });
    expect(terminal.write('x')).toMatchObject({ ok: false, error: { code: 'channel-closed' } });
  });

  it('resizes the PTY and the screen together', () => {
    const { pty, terminal } = setup();
    terminal.resize(100, 30);
    expect([pty.cols, pty.rows, terminal.cols, terminal.rows]).toEqual([100, 30, 100, 30]);
    expect(terminal.snapshot()).toMatchObject({ cols: 100, rows: 30 });
  });

  it('reports the exit once, to listeners and readers, after the last output', () => {
    const { pty, terminal } = setup();
    const reader = new Reader();
    terminal.addReader(reader);
    const exits: unknown[] = [];
    terminal.onExit((exit) => exits.push(exit));
    pty.pause();
    pty.emit('bye');
    pty.exit({ code: 3, signal: null });
    expect(terminal.end).toBe(3);
    expect(exits).toEqual([{ code: 3, signal: null }]);
    expect(terminal.exit).toEqual({ code: 3, signal: null });
    expect(reader.notified).toBe(2);
    terminal.onExit((exit) => exits.push(exit));
    expect(exits).toHaveLength(2);
  });

  it('hangs the program up on close, and kills it after the grace period if it is still there', () => {
    const { clock, pty, terminal } = setup();
    terminal.close();
    expect(pty.signals).toEqual(['SIGHUP']);
    clock.advance(KILL_GRACE_MS);
    expect(pty.signals).toEqual(['SIGHUP', 'SIGKILL']);
  });
});
