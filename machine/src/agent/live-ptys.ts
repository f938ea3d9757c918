import type { ExecError, MachineEvent, Result } from '@tether/shared-protocol';
import {
  MAX_MACHINE_PTYS,
  MAX_OUTPUT_CHUNK_BYTES,
  OUTPUT_WINDOW_BYTES,
  execFail,
  fromBase64Url,
  ok,
  toBase64Url,
} from '@tether/shared-protocol';
import type { KillSignal } from '../execution-context.js';
import type { PtyPort, PtyProcess } from '../terminal/pty-port.js';
import { MAX_PENDING_TERMINAL_INPUT } from '../terminal/terminal.js';

interface Live {
  pty: PtyProcess;
  /** Bytes sent in `pty.output` and not yet acknowledged by the host. */
  unacked: number;
  paused: boolean;
}

export interface PtySpawned {
  shell: string;
  cwd: string;
  pid: number;
}

/**
 * Terminals the host opened on this machine (`pty.*`): the login shell on a PTY, its output sent
 * as `pty.output` events of at most MAX_OUTPUT_CHUNK_BYTES. Once OUTPUT_WINDOW_BYTES are
 * unacknowledged the PTY is paused (the kernel's buffer then holds the program back; nothing is
 * dropped) until the host's `pty.ack` opens the window again. The backlog and screen live on the
 * host, so a terminal cannot outlive its link: every one is killed when the link drops.
 */
export class LivePtys {
  private readonly live = new Map<string, Live>();

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
    const entry: Live = { pty, unacked: 0, paused: false };
    this.live.set(ptyId, entry);
    pty.onData((chunk) => {
      if (this.live.get(ptyId) !== entry) return;
      for (let at = 0; at < chunk.length; at += MAX_OUTPUT_CHUNK_BYTES) {
        const piece = chunk.subarray(at, at + MAX_OUTPUT_CHUNK_BYTES);
        this.send({ type: 'pty.output', ptyId, data: toBase64Url(piece) });
        entry.unacked += piece.length;
      }
      if (!entry.paused && entry.unacked >= OUTPUT_WINDOW_BYTES) {
        entry.paused = true;
        pty.pause();
      }
    });
    pty.onExit((exit) => {
      if (this.live.get(ptyId) !== entry) return;
      this.live.delete(ptyId);
      this.send({ type: 'pty.exit', ptyId, code: exit.code, signal: exit.signal });
    });
    return ok({ shell: request.shell, cwd: request.cwd, pid: pty.pid });
  }

  /** The host took `bytes` more of this terminal's output. */
  ack(ptyId: string, bytes: number): void {
    const entry = this.live.get(ptyId);
    if (!entry) return;
    entry.unacked = Math.max(0, entry.unacked - bytes);
    // Reopened at half the window, so a steady reader is not paused and resumed on every chunk.
    if (entry.paused && entry.unacked <= OUTPUT_WINDOW_BYTES / 2) {
      entry.paused = false;
      entry.pty.resume();
    }
  }

  write(ptyId: string, data: string): Result<Record<string, never>, ExecError> {
    const entry = this.live.get(ptyId);
    if (!entry) return execFail('not-found', `no terminal ${ptyId}`);
    const bytes = fromBase64Url(data);
    if (!bytes) return execFail('invalid-params', 'input is not base64url');
    const pending = entry.pty.pendingInput();
    if (pending + bytes.length > MAX_PENDING_TERMINAL_INPUT) {
      return execFail(
        'busy',
        `${pending} bytes of input wait for the program already; the limit is ${MAX_PENDING_TERMINAL_INPUT}`,
      );
    }
    entry.pty.write(bytes);
    return ok({});
  }

  resize(ptyId: string, cols: number, rows: number): Result<Record<string, never>, ExecError> {
    this.live.get(ptyId)?.pty.resize(cols, rows);
    return ok({});
  }

  kill(ptyId: string, signal: KillSignal = 'SIGHUP'): Result<Record<string, never>, ExecError> {
    this.live.get(ptyId)?.pty.kill(signal);
    return ok({});
  }

  /** The link dropped: every terminal is killed and forgotten. */
  killAll(): void {
    for (const entry of this.live.values()) entry.pty.kill('SIGKILL');
    this.live.clear();
  }
}
