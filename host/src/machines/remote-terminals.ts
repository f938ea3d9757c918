import type { Clock, MachineParams, Result } from '@tether/shared-protocol';
import {
  CreditInbox,
  MAX_PROC_WRITE_BYTES,
  OUTPUT_WINDOW_BYTES,
  decodeMachineEvent,
  execFail,
  fromBase64Url,
  ok,
  toBase64Url,
} from '@tether/shared-protocol';
import type {
  KillSignal,
  OpenTerminalError,
  OpenTerminalRequest,
  ProcessExit,
  PtyProcess,
  TerminalHandle,
  TerminalPlace,
} from '@tether/machine';
import { Terminal } from '@tether/machine';
import type { MachineChannel } from './machine-channel.js';

/** Bytes of a terminal's output held here while the terminal is paused: the machine stops at its
 * window, so more than twice that means it ignores flow control, and the terminal is killed. */
const MAX_HELD_PTY_BYTES = 2 * OUTPUT_WINDOW_BYTES;

/**
 * A program on a machine's PTY, behind the same PtyProcess as one on this computer, so the host's
 * Terminal (backlog, screen, per-device flow control) runs over it unchanged. Output arrives as
 * `pty.output` events and is acknowledged as it is handed on; while the Terminal pauses it, output
 * is held and not acknowledged, so the machine's window fills and it pauses the PTY there. It
 * cannot outlive its link: when the link drops it exits (code and signal null), which the devices
 * see as `terminal.exit`.
 */
export class RemotePtyProcess implements PtyProcess {
  pid = 0;
  private readonly dataListeners: ((chunk: Uint8Array) => void)[] = [];
  private readonly exitListeners: ((exit: ProcessExit) => void)[] = [];
  private readonly held = new CreditInbox<Uint8Array>(MAX_HELD_PTY_BYTES, (chunk) => chunk.length);
  private paused = false;
  /** Input sent and not yet taken by the machine. */
  private inFlight = 0;
  /** The machine's exit, waiting for held output to be handed on first. */
  private exitSeen: ProcessExit | undefined;
  private ended = false;
  private readonly stop: (() => void)[] = [];
  /** The link it runs on, once the machine said it started. */
  private generation: number | undefined;

  /** Listens from before the spawn request goes out: output may follow its reply at once. */
  constructor(
    private readonly channel: MachineChannel,
    readonly ptyId: string,
  ) {
    this.stop.push(
      channel.onEvent((raw) => this.event(raw)),
      channel.onLink(() => this.checkLink()),
    );
  }

  /** The machine started it, on the link live now. */
  started(pid: number): void {
    this.pid = pid;
    this.generation = this.channel.generation;
    this.checkLink();
  }

  /** Stops listening (the spawn was refused). */
  abandon(): void {
    this.ended = true;
    for (const stop of this.stop.splice(0)) stop();
  }

  onData(listener: (chunk: Uint8Array) => void): void {
    this.dataListeners.push(listener);
    this.flow();
  }

  onExit(listener: (exit: ProcessExit) => void): void {
    this.exitListeners.push(listener);
  }

  write(data: Uint8Array): void {
    for (let at = 0; at < data.length; at += MAX_PROC_WRITE_BYTES) {
      const piece = data.subarray(at, at + MAX_PROC_WRITE_BYTES);
      this.inFlight += piece.length;
      void this.send('pty.write', { ptyId: this.ptyId, data: toBase64Url(piece) }).then(() => {
        this.inFlight -= piece.length;
      });
    }
  }

  pendingInput(): number {
    return this.inFlight;
  }

  resize(cols: number, rows: number): void {
    void this.send('pty.resize', { ptyId: this.ptyId, cols, rows });
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.flow();
  }

  kill(signal: KillSignal): void {
    if (this.ended) return;
    void this.send('pty.kill', { ptyId: this.ptyId, signal });
  }

  private live(): boolean {
    return (
      !this.ended && this.generation !== undefined && this.channel.generation === this.generation && this.channel.online
    );
  }

  private async send<M extends 'pty.write' | 'pty.resize' | 'pty.kill'>(
    method: M,
    params: MachineParams<M>,
  ): Promise<void> {
    if (!this.live()) return;
    await this.channel.call(method, params, { wait: false });
  }

  private checkLink(): void {
    if (this.generation === undefined || this.ended) return;
    if (this.channel.generation !== this.generation || !this.channel.online) {
      // The machine kills its terminals with the link: what arrived is handed on, then the end.
      this.exitSeen ??= { code: null, signal: null };
      this.paused = false;
      this.flow();
    }
  }

  private event(raw: unknown): void {
    if (this.ended) return;
    const decoded = decodeMachineEvent(raw);
    if (decoded.kind !== 'event') return;
    const event = decoded.event;
    if (!('ptyId' in event) || event.ptyId !== this.ptyId) return;
    if (event.type === 'pty.output') {
      const chunk = fromBase64Url(event.data);
      if (!chunk || this.exitSeen) return;
      if (!this.held.hold(chunk)) {
        this.kill('SIGKILL');
        this.held.clear();
        this.exitSeen = { code: null, signal: 'SIGKILL' };
      }
      this.flow();
    } else if (event.type === 'pty.exit') {
      this.exitSeen ??= { code: event.code, signal: event.signal };
      this.flow();
    }
  }

  /** Hands held output on (acknowledging it), then the exit once all is taken. */
  private flow(): void {
    const taken = this.held.drain(
      () => this.dataListeners.length > 0 && !this.paused,
      (chunk) => {
        for (const listener of this.dataListeners) listener(chunk);
      },
    );
    if (taken > 0 && this.live()) this.channel.notify({ type: 'pty.ack', ptyId: this.ptyId, bytes: taken });
    if (this.exitSeen && this.held.isEmpty && !this.ended) {
      this.ended = true;
      for (const stop of this.stop.splice(0)) stop();
      for (const listener of this.exitListeners) listener(this.exitSeen);
    }
  }
}

/**
 * Terminals on a machine: the machine checks the folder against its own shared roots and private
 * folders and runs its own login shell (`pty.spawn`); the backlog, screen and devices' streams are
 * the host's own Terminal over a RemotePtyProcess, exactly as for a terminal on this computer.
 */
export class RemoteTerminals implements TerminalPlace {
  constructor(
    private readonly channel: MachineChannel,
    private readonly clock: Clock,
    private readonly newId: (prefix: string) => string,
  ) {}

  get place(): string {
    return this.channel.name;
  }

  async open(request: OpenTerminalRequest): Promise<Result<TerminalHandle, OpenTerminalError>> {
    const ptyId = this.newId('pty');
    const process = new RemotePtyProcess(this.channel, ptyId);
    const result = await this.channel.call(
      'pty.spawn',
      { ptyId, cols: request.cols, rows: request.rows, ...(request.cwd !== undefined ? { cwd: request.cwd } : {}) },
      { wait: false },
    );
    if (!result.ok) {
      process.abandon();
      // An answer the channel could not decode may stand for a terminal that did open: it is
      // ended (killing a terminal the machine does not have is harmless).
      if (result.error.code === 'io') void this.channel.call('pty.kill', { ptyId, signal: 'SIGKILL' }, { wait: false });
      return execFail(openCode(result.error.code), result.error.message);
    }
    process.started(result.value.pid);
    return ok(
      new Terminal(process, {
        shell: result.value.shell,
        cwd: result.value.cwd,
        cols: request.cols,
        rows: request.rows,
        clock: this.clock,
      }),
    );
  }
}

const OPEN_CODES: ReadonlySet<string> = new Set<OpenTerminalError['code']>([
  'outside-root',
  'not-found',
  'not-a-folder',
  'io',
  'busy',
  'unreachable',
]);

/** A machine's refusal as a terminal-open code; anything else it might say is an I/O failure. */
function openCode(code: string): OpenTerminalError['code'] {
  return OPEN_CODES.has(code) ? (code as OpenTerminalError['code']) : 'io';
}
