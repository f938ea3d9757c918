import type { ExecError, MachineEvent, Result } from '@tether/shared-protocol';
import { MAX_MACHINE_PTYS, execFail, fromBase64Url, ok, toBase64Url } from '@tether/shared-protocol';
import type { KillSignal } from '../execution-context.js';
import type { PtyPort, PtyProcess } from '../terminal/pty-port.js';
import { MAX_PENDING_TERMINAL_INPUT } from '../terminal/terminal.js';
import { LiveStreams } from './live-streams.js';

export interface PtySpawned {
  shell: string;
  cwd: string;
  pid: number;
}

/**
 * Terminals the host opened on this machine (`pty.*`): the login shell on a PTY, its output sent
 * as `pty.output` events through each terminal's credit window (LiveStreams). Once the window is
 * full the PTY is paused (the kernel's buffer then holds the program back; nothing is dropped)
 * until the host's `pty.ack` opens it again. The backlog and screen live on the host, so a
 * terminal cannot outlive its link: every one is killed when the link drops.
 */
export class LivePtys {
  private readonly live = new LiveStreams<PtyProcess>();

  constructor(
    private readonly port: PtyPort,
    private readonly send: (event: MachineEvent) => void,
    private readonly max = MAX_MACHINE_PTYS,
  ) {}

  get count(): number {
    return this.live.size;
  }

  /** Room for one more? Checked before the folder is, so a refusal costs nothing. */
  full(): Result<void, ExecError<'busy'>> {
    return this.live.size >= this.max
      ? execFail('busy', `${this.max} terminals are open on this machine already; close one first`)
      : ok(undefined);
  }

  spawn(
    ptyId: string,
    request: { shell: string; cwd: string; env: Record<string, string>; cols: number; rows: number },
  ): Result<PtySpawned, ExecError<'busy' | 'invalid-params' | 'io'>> {
    if (this.live.has(ptyId)) return execFail('invalid-params', `terminal ${ptyId} is open already`);
    const full = this.full();
    if (!full.ok) return full;
    const spawned = this.port.spawn({
      file: request.shell,
      args: ['-l'],
      cwd: request.cwd,
      env: request.env,
      cols: request.cols,
      rows: request.rows,
    });
    if (!spawned.ok) return execFail('io', spawned.error.message);
    const pty = spawned.value;
    const entry = this.live.add(ptyId, pty);
    pty.onData((chunk) => {
      if (!this.live.isCurrent(ptyId, entry)) return;
      this.live.output(entry, chunk, (piece) => this.send({ type: 'pty.output', ptyId, data: toBase64Url(piece) }));
    });
    pty.onExit((exit) => {
      if (!this.live.end(ptyId, entry)) return;
      this.send({ type: 'pty.exit', ptyId, code: exit.code, signal: exit.signal });
    });
    return ok({ shell: request.shell, cwd: request.cwd, pid: pty.pid });
  }

  /** The host took `bytes` more of this terminal's output. */
  ack(ptyId: string, bytes: number): void {
    this.live.ack(ptyId, bytes);
  }

  write(ptyId: string, data: string): Result<Record<string, never>, ExecError> {
    const pty = this.live.handle(ptyId);
    if (!pty) return execFail('not-found', `no terminal ${ptyId}`);
    const bytes = fromBase64Url(data);
    if (!bytes) return execFail('invalid-params', 'input is not base64url');
    const pending = pty.pendingInput();
    if (pending + bytes.length > MAX_PENDING_TERMINAL_INPUT) {
      return execFail(
        'busy',
        `${pending} bytes of input wait for the program already; the limit is ${MAX_PENDING_TERMINAL_INPUT}`,
      );
    }
    pty.write(bytes);
    return ok({});
  }

  resize(ptyId: string, cols: number, rows: number): Result<Record<string, never>, ExecError> {
    this.live.handle(ptyId)?.resize(cols, rows);
    return ok({});
  }

  kill(ptyId: string, signal: KillSignal = 'SIGHUP'): Result<Record<string, never>, ExecError> {
    this.live.handle(ptyId)?.kill(signal);
    return ok({});
  }

  /** The link dropped: every terminal is killed and forgotten. */
  killAll(): void {
    this.live.clear((pty) => pty.kill('SIGKILL'));
  }
}
