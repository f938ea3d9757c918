import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IPty } from 'node-pty';
import { spawn } from 'node-pty';
import type { SessionSummary, TetherEvent } from '@tether/shared-protocol';
import { terminalOutputBytes } from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDevice, pairDevice, until } from '../../../test/support/remote-device.js';
import { runCommand } from '../../../test/support/run-command.js';
import { attachCommand, runCommand as tetherRun } from '../../cli/commands/run.js';
import { terminalsCommand } from '../../cli/commands/terminals.js';
import type { TestHost } from '../../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../../test/support/test-host.js';

/** The `tether` command as a person runs it (built by `npm run build`, which `npm test` runs first). */
const TETHER = fileURLToPath(new URL('../../../bin/tether.js', import.meta.url));

let t: TestHost | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await t?.close();
  t = undefined;
});

/** `tether …` in a terminal of the test's own: what a person at the computer sees and types. */
function tether(args: string[]): { pty: IPty; screen: () => string; exit: Promise<number> } {
  const pty = spawn(process.execPath, [TETHER, ...args], {
    cols: 100,
    rows: 30,
    cwd: t!.project,
    env: { PATH: process.env.PATH!, HOME: t!.dir, TETHER_DATA_DIR: join(t!.dir, 'data'), PS1: '$ ', TERM: 'xterm' },
  });
  let text = '';
  pty.onData((data) => (text += data));
  const exit = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
  cleanups.push(() => {
    try {
      pty.kill();
    } catch {
      // Gone already.
    }
  });
  return { pty, screen: () => text, exit };
}

async function sessionNamed(name: string): Promise<SessionSummary> {
  return until(
    () => t!.host.parts.sessions.list().find((s) => s.kind === 'terminal' && s.title === name),
    10_000,
    name,
  );
}

const BASH = ['--', 'bash', '--norc', '--noprofile'];

describe('tether run', () => {
  it('wraps bash: this terminal and a device both see it and type into it; detach and attach keep it', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE, env: { PATH: process.env.PATH } });
    const first = tether(['run', '--name', 'work', ...BASH]);
    await until(() => first.screen().includes('$ ') || undefined, 10_000, 'the prompt');
    first.pty.write('echo typed-$((40+2))\r');
    await until(() => first.screen().includes('typed-42') || undefined, 10_000, 'the echo');

    // The session a device sees: kind terminal, its command line, and the terminal to attach to.
    const session = await sessionNamed('work');
    expect(session).toMatchObject({ kind: 'terminal', status: 'running', place: 'local', cwd: t.project });
    expect(session.model).toMatch(/bash --norc --noprofile$/);
    const device = await pairDevice(t);
    const { client } = connectDevice(t, device);
    cleanups.push(() => client.stop());
    let seen = '';
    client.onEvent((event: TetherEvent) => {
      if (event.type === 'terminal.screen' || event.type === 'terminal.output')
        seen += new TextDecoder().decode(terminalOutputBytes(event.data));
    });
    const attached = await client.call('terminals.attach', { terminalId: session.terminalId!, after: 0 });
    expect(attached.ok).toBe(true);
    await until(() => seen.includes('typed-42') || undefined, 10_000, 'the device sees the screen');
    expect(
      (await client.call('terminals.input', { terminalId: session.terminalId!, data: 'echo from-$((1+1))-phone\r' }))
        .ok,
    ).toBe(true);
    await until(() => first.screen().includes('from-2-phone') || undefined, 10_000, 'typed from the device');

    // Ctrl-] detaches this terminal; the program goes on.
    first.pty.write('\x1d');
    expect(await first.exit).toBe(0);
    expect(first.screen()).toContain('[detached: work goes on; tether attach work returns to it]');
    expect(t.host.parts.terminals.list()).toMatchObject([
      { id: session.terminalId, status: 'running', sessionId: session.id },
    ]);

    // Attached again, from the screen as it is now; the program's exit ends the command with its code.
    const second = tether(['attach', 'work']);
    await until(() => second.screen().includes('from-2-phone') || undefined, 10_000, 'the screen again');
    second.pty.write('exit 3\r');
    expect(await second.exit).toBe(3);
    expect(second.screen()).toContain('[work exited with code 3]');
    const ended = await until(() => {
      const s = t!.host.parts.sessions.get(session.id);
      return s?.status === 'error' ? s : undefined;
    });
    expect(ended.lastLine).toBe('work exited with code 3');
    expect(
      t
        .events(session.id)
        .filter((e) => e.type === 'notice')
        .map((e) => e.type === 'notice' && e.text),
    ).toEqual([expect.stringContaining('Started '), 'work exited with code 3.']);
  });

  it('marks the session waiting while the program stops at a question, and running once it is answered', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE, env: { PATH: process.env.PATH }, promptQuietMs: 100 });
    const script = 'printf "Continue? [y/N] "; read answer; echo "got $answer"; sleep 30';
    const started = tether(['run', '--detached', '--name', 'asker', '--', 'sh', '-c', script]);
    expect(await started.exit).toBe(0);
    expect(started.screen()).toContain('Started asker. tether attach asker shows it.');
    const session = await sessionNamed('asker');
    const waiting = await t.waitFor(session.id, (e) => e.type === 'session.waiting');
    expect(waiting).toMatchObject({ reason: 'question', text: 'Continue? [y/N]' });
    expect(t.host.parts.sessions.get(session.id)).toMatchObject({ status: 'waiting', lastLine: 'Continue? [y/N]' });

    // A message to the session is typed into the program, with Enter.
    expect(t.host.parts.sessions.send(session.id, 'y')).toEqual({ ok: true, value: { queued: false } });
    await until(
      () => (t!.host.parts.sessions.get(session.id)?.status === 'running' ? true : undefined),
      10_000,
      'running',
    );
    expect(t.host.parts.terminals.handle(session.terminalId!)!.screenLines().join('\n')).toContain('got y');
    // Stop is Ctrl-C to the program.
    expect(t.host.parts.sessions.interrupt(session.id).ok).toBe(true);
    await until(() => (t!.host.parts.sessions.get(session.id)?.status === 'error' ? true : undefined), 10_000, 'ended');
  });

  it('lets no device without the terminal scope type into a program, not even as a message', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE, env: { PATH: process.env.PATH } });
    const data = ['--data-dir', join(t.dir, 'data')];
    const cat = ['--detached', '--cwd', t.project, '--name', 'cat', '--', 'cat'];
    expect((await runCommand(tetherRun, [...data, ...cat], { PATH: process.env.PATH })).code).toBe(0);
    const session = await sessionNamed('cat');
    const device = await pairDevice(t, { scopes: ['watch', 'chat'] });
    const { client } = connectDevice(t, device);
    cleanups.push(() => client.stop());
    for (const [method, params] of [
      ['sessions.send', { id: session.id, text: 'rm -rf ~' }],
      ['sessions.interrupt', { id: session.id }],
      ['terminals.input', { terminalId: session.terminalId!, data: 'rm -rf ~\r' }],
    ] as const) {
      const refused = await client.call(method, params);
      expect(refused.ok || refused.error.code).toBe('forbidden');
    }
    expect(t.host.parts.terminals.handle(session.terminalId!)!.end).toBe(0);
  });

  it('refuses what it cannot run, and a second program of the same name', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE, env: { PATH: process.env.PATH } });
    const data = ['--data-dir', join(t.dir, 'data')];
    const run = (...args: string[]) => runCommand(tetherRun, [...data, ...args], { PATH: process.env.PATH });
    expect(await run('--', 'no-such-program-here')).toMatchObject({
      code: 1,
      err: 'tether run: no-such-program-here: command not found\n',
    });
    expect((await run('--detached', '--cwd', '/', '--', 'sleep', '30')).err).toContain(
      'is not under a folder this computer shares',
    );
    expect(await run('--detached', '--cwd', t.project, '--name', 'twice', '--', 'sleep', '30')).toMatchObject({
      code: 0,
      out: 'Started twice. tether attach twice shows it.\n',
    });
    const listed = await runCommand(terminalsCommand, data);
    const twice = t.host.parts.sessions.list().find((s) => s.title === 'twice')!;
    expect(listed.out).toMatch(new RegExp(`^${twice.terminalId} +local +running .* ${twice.id} +${t.project}$`, 'm'));
    const again = await run('--detached', '--cwd', t.project, '--name', 'twice', '--', 'sleep', '30');
    expect(again.err).toContain('a program named twice is running already');
    const nobody = await runCommand(attachCommand, [...data, 'nobody']);
    expect(nobody).toMatchObject({
      code: 1,
      err: 'tether attach: no program called nobody is held open (there are: twice)\n',
    });
  });

  it('a known program asking in words its patterns were not written for shows as running, never waiting or failed', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE, env: { PATH: process.env.PATH }, promptQuietMs: 100 });
    // A later `claude` than the ready patterns know: its question in other words.
    const bin = mkdtempSync(join(tmpdir(), 'tether-next-claude-'));
    cleanups.push(() => rmSync(bin, { recursive: true, force: true }));
    const claude = join(bin, 'claude');
    writeFileSync(
      claude,
      '#!/bin/sh\nprintf "Run \\`npm test\\`?\\n  > Run it   Skip\\n"\nread answer\necho "got $answer"\nsleep 30\n',
      { mode: 0o755 },
    );
    const data = ['--data-dir', join(t.dir, 'data')];
    const started = await runCommand(tetherRun, [...data, '--detached', '--cwd', t.project, '--', claude], {
      PATH: process.env.PATH,
    });
    expect(started.code).toBe(0);
    const session = await sessionNamed('claude');
    const notice = t.events(session.id).find((e) => e.type === 'notice');
    expect(notice?.type === 'notice' && notice.text).toContain('the prompt patterns written for Claude Code 2.1');
    const handle = t.host.parts.terminals.handle(session.terminalId!)!;
    await until(() => (handle.screenLines().join('\n').includes('Run it') ? true : undefined), 10_000, 'the question');
    // Many quiet periods later it is still running, with no question recorded.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(t.host.parts.sessions.get(session.id)?.status).toBe('running');
    expect(t.events(session.id).some((e) => e.type === 'session.waiting')).toBe(false);
    // The terminal still takes the answer.
    expect(t.host.parts.sessions.send(session.id, 'y').ok).toBe(true);
    await until(() => (handle.screenLines().join('\n').includes('got y') ? true : undefined), 10_000, 'the answer');
    expect(t.host.parts.sessions.get(session.id)?.status).toBe('running');
  });
});
