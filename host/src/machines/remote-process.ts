import type { ExecError, MachineParams, MachineResult, Result } from '@tether/shared-protocol';
import {
  CreditInbox,
  OUTPUT_WINDOW_BYTES,
  decodeMachineEvent,
  execFail,
  fromBase64Url,
  ok,
  toBase64Url,
} from '@tether/shared-protocol';
import { MAX_PROC_WRITE_BYTES } from '@tether/shared-protocol';
import type { InputError, KillSignal, OutputStream, ProcessExit, ProcessHandle } from '@tether/machine';
import type { MachineChannel } from './machine-channel.js';

/** Bytes of a process's output held here while nobody takes it: the machine stops at its window,
 * so more than twice that means the machine ignores flow control, and the process is killed. */
const MAX_HELD_OUTPUT_BYTES = 2 * OUTPUT_WINDOW_BYTES;

type Listener = (stream: OutputStream, chunk: Uint8Array) => void;

/**
 * A process running on a machine, behind the same ProcessHandle as a local one. Output arrives as
 * `proc.output` events; it is handed to listeners unless paused, and acknowledged as it is handed
 * over, so a paused or slow reader holds the process back on the machine (its window fills, it
 * stops reading its pipes) rather than filling memory here. The process cannot outlive its link:
 * when the link drops, `exited` answers `unreachable` (the machine kills it).
 */
export class RemoteProcess implements ProcessHandle {
  readonly exited: Promise<Result<ProcessExit, ExecError<'unreachable'>>>;
  private readonly listeners = new Set<Listener>();
  private readonly held = new CreditInbox<{ stream: OutputStream; chunk: Uint8Array }>(
    MAX_HELD_OUTPUT_BYTES,
    (output) => output.chunk.length,
  );
  private paused = false;
  private exit: ProcessExit | undefined;
  private settle!: (result: Result<ProcessExit, ExecError<'unreachable'>>) => void;
  private readonly stop: (() => void)[] = [];
  /** The link it runs on, once the machine said it started. */
  private generation: number | undefined;

  /** Listens from before the spawn request goes out: output may follow its reply at once. */
  constructor(
    private readonly channel: MachineChannel,
    readonly procId: string,
  ) {
    this.exited = new Promise((resolve) => (this.settle = resolve));
    this.stop.push(
      channel.onEvent((raw) => this.event(raw)),
      channel.onLink(() => this.checkLink()),
    );
  }

  /** The machine started it, on the link live now. */
  started(): void {
    this.generation = this.channel.generation;
    this.checkLink();
  }

  /** Ends it, unstarted (the spawn was refused). */
  abandon(): void {
    this.finish(execFail('unreachable', 'the process did not start'));
  }

  private checkLink(): void {
    if (this.generation === undefined) return;
    if (this.channel.generation !== this.generation || !this.channel.online) {
      this.finish(execFail('unreachable', `${this.channel.name} disconnected; the process is gone`));
    }
  }

  onOutput(listener: Listener): () => void {
    this.listeners.add(listener);
    this.flow();
    return () => this.listeners.delete(listener);
  }

  async write(data: Uint8Array | string): Promise<Result<void, InputError>> {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    for (let at = 0; at < bytes.length || at === 0; at += MAX_PROC_WRITE_BYTES) {
      const sent = await this.send('proc.write', {
        procId: this.procId,
        data: toBase64Url(bytes.subarray(at, at + MAX_PROC_WRITE_BYTES)),
      });
      if (!sent.ok)
        return sent.error.code === 'busy'
          ? execFail('busy', sent.error.message)
          : execFail('channel-closed', sent.error.message);
      if (bytes.length === 0) break;
    }
    return ok(undefined);
  }

  closeInput(): void {
    void this.send('proc.closeInput', { procId: this.procId });
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.flow();
  }

  kill(signal: KillSignal = 'SIGTERM'): void {
    if (this.exit) return;
    void this.send('proc.kill', { procId: this.procId, signal });
  }

  private send<M extends 'proc.write' | 'proc.closeInput' | 'proc.kill'>(
    method: M,
    params: MachineParams<M>,
  ): Promise<Result<MachineResult<M>>> {
    if (this.generation === undefined || this.channel.generation !== this.generation || !this.channel.online) {
      return Promise.resolve({
        ok: false,
        error: { code: 'channel-closed', message: 'the process is gone with its link' },
      });
    }
    return this.channel.call(method, params, { wait: false });
  }

  private event(raw: unknown): void {
    const decoded = decodeMachineEvent(raw);
    if (decoded.kind !== 'event') return;
    const event = decoded.event;
    if (!('procId' in event) || event.procId !== this.procId) return;
    if (event.type === 'proc.output') {
      const chunk = fromBase64Url(event.data);
      if (!chunk) return;
      if (!this.held.hold({ stream: event.stream, chunk })) {
        this.kill('SIGKILL');
        this.finish(
          execFail('unreachable', `${this.channel.name} sent output past its window; the process was killed`),
        );
        return;
      }
      this.flow();
    } else if (event.type === 'proc.exit') {
      this.exit = { code: event.code, signal: event.signal };
      this.flow();
    }
  }

  /** Hands held output to listeners (acknowledging it), then the exit once all is taken. */
  private flow(): void {
    const taken = this.held.drain(
      () => this.listeners.size > 0 && !this.paused,
      ({ stream, chunk }) => {
        for (const listener of this.listeners) listener(stream, chunk);
      },
    );
    if (taken > 0) this.channel.notify({ type: 'proc.ack', procId: this.procId, bytes: taken });
    if (this.exit && this.held.isEmpty) this.finish(ok(this.exit));
  }

  private finish(result: Result<ProcessExit, ExecError<'unreachable'>>): void {
    for (const stop of this.stop.splice(0)) stop();
    this.settle(result);
  }
}
