import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@tether/shared-protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakePtyPort } from './fake-pty.js';
import { NodePtyPort } from './node-pty-port.js';
import { MAX_TERMINALS, PtyTerminals } from './pty-terminals.js';
import type { TerminalHandle } from './terminal.js';

let dir: string;
let root: string;
const open: TerminalHandle[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-pty-')));
  root = join(dir, 'root');
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(root, 'file.txt'), 'x');
  mkdirSync(join(dir, 'outside'));
  symlinkSync(join(dir, 'outside'), join(root, 'escape'));
});

afterEach(() => {
  for (const terminal of open.splice(0)) terminal.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits (on real time: a real shell runs) until the output holds `text`. */
async function outputContains(terminal: TerminalHandle, text: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = new TextDecoder().decode(terminal.read(0, terminal.end)?.data ?? new Uint8Array());
    if (all.includes(text)) return all;
    if (Date.now() > deadline) throw new Error(`no ${JSON.stringify(text)} in ${JSON.stringify(all)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('terminals on this computer', () => {
  it("runs a named program with the person's environment, less Tether's own variables", async () => {
    const terminals = new PtyTerminals({ pty: new NodePtyPort(), roots: [root], clock: systemClock });
    const script = 'echo "key=[$ANTHROPIC_API_KEY] token=[$TETHER_TOKEN] term=$TERM args=$*"; exit 3';
    const opened = await terminals.run({
      command: ['/bin/sh', '-c', script, 'sh', 'a', 'b'],
      cwd: root,
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'mine', TETHER_TOKEN: 'hidden' },
      cols: 80,
      rows: 24,
    });
    if (!opened.ok) throw new Error(opened.error.message);
    open.push(opened.value);
    const exited = new Promise((resolve) => opened.value.onExit(resolve));
    expect(await outputContains(opened.value, 'args=')).toContain('key=[mine] token=[] term=xterm-256color args=a b');
    expect(await exited).toEqual({ code: 3, signal: null });
    expect(opened.value.shell).toBe('/bin/sh');
  });

  it('refuses a program that is not an absolute path, and a folder outside the roots', async () => {
    const terminals = new PtyTerminals({ pty: new FakePtyPort(), roots: [root], clock: systemClock });
    const request = { cwd: root, env: {}, cols: 80, rows: 24 };
    const bare = await terminals.run({ ...request, command: ['sh'] });
    expect(bare.ok || bare.error.code).toBe('not-found');
    const outside = await terminals.run({ ...request, command: ['/bin/sh'], cwd: join(dir, 'outside') });
    expect(outside.ok || outside.error.code).toBe('outside-root');
  });

  it('runs a real shell on a PTY in the folder asked for, echoing what is typed', async () => {
    const terminals = new PtyTerminals({
      pty: new NodePtyPort(),
      roots: [root],
      clock: systemClock,
      shell: '/bin/sh',
      env: { PATH: process.env.PATH, PS1: '$ ', ANTHROPIC_API_KEY: 'secret' },
    });
    const opened = await terminals.open({ cwd: join(root, 'sub'), cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.error.message);
    const terminal = opened.value;
    open.push(terminal);
    expect(terminal.write('pwd; echo "key=[$ANTHROPIC_API_KEY] term=$TERM"; echo "$((6*7))"\r').ok).toBe(true);
    const output = await outputContains(terminal, '42');
    expect(output).toContain(join(root, 'sub'));
    expect(output).toContain('key=[] term=xterm-256color');
    const exited = new Promise((resolve) => terminal.onExit(resolve));
    terminal.write('exit 7\r');
    expect(await exited).toEqual({ code: 7, signal: null });
  });

  it('stops a foreground program on close: the hangup reaches the shell and its job', async () => {
    const terminals = new PtyTerminals({
      pty: new NodePtyPort(),
      roots: [root],
      clock: systemClock,
      shell: '/bin/bash',
    });
    const opened = await terminals.open({ cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.error.message);
    const terminal = opened.value;
    terminal.write('sleep 100\r');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = new Promise((resolve) => terminal.onExit(resolve));
    terminal.close();
    expect(await exited).toMatchObject({ code: null, signal: 'SIGHUP' });
  });

  it('holds back input for a program that does not read it, up to the bound', async () => {
    const terminals = new PtyTerminals({ pty: new NodePtyPort(), roots: [root], clock: systemClock, shell: '/bin/sh' });
    const opened = await terminals.open({ cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.error.message);
    const terminal = opened.value;
    open.push(terminal);
    terminal.write('sleep 100\r');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // node-pty queues what the PTY will not take; the terminal reads that queue to refuse more.
    const chunk = 'x'.repeat(60 * 1024);
    let refused: string | undefined;
    for (let i = 0; i < 40 && refused === undefined; i++) {
      const written = terminal.write(chunk);
      if (!written.ok) refused = written.error.code;
    }
    expect(refused).toBe('busy');
  });

  it('refuses a folder outside the roots, through a symlink too, and says what is wrong with others', async () => {
    const port = new FakePtyPort();
    const terminals = new PtyTerminals({ pty: port, roots: [root], clock: systemClock, shell: '/bin/sh' });
    const code = async (cwd: string) => {
      const opened = await terminals.open({ cwd, cols: 80, rows: 24 });
      return opened.ok ? 'ok' : opened.error.code;
    };
    expect(await code(join(dir, 'outside'))).toBe('outside-root');
    expect(await code(join(root, 'escape'))).toBe('outside-root');
    expect(await code(join(root, '..'))).toBe('outside-root');
    expect(await code('/etc')).toBe('outside-root');
    expect(await code(join(root, 'file.txt'))).toBe('not-a-folder');
    expect(await code(join(root, 'missing'))).toBe('not-found');
    expect(await code('sub')).toBe('ok');
    expect(port.last.request.cwd).toBe(join(root, 'sub'));
    expect(port.last.request.args).toEqual(['-l']);
    expect(port.spawned).toHaveLength(1);
  });

  it('opens at most MAX_TERMINALS at once', async () => {
    const port = new FakePtyPort();
    const terminals = new PtyTerminals({ pty: port, roots: [root], clock: systemClock, shell: '/bin/sh' });
    for (let i = 0; i < MAX_TERMINALS; i++) expect((await terminals.open({ cols: 80, rows: 24 })).ok).toBe(true);
    expect(await terminals.open({ cols: 80, rows: 24 })).toMatchObject({ ok: false, error: { code: 'busy' } });
    port.spawned[0]!.exit();
    expect((await terminals.open({ cols: 80, rows: 24 })).ok).toBe(true);
  });
});
