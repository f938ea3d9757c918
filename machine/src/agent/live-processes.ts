import type { ExecError, MachineEvent, Result } from '@tether/shared-protocol';
import {
  MAX_LIVE_STREAMS,
  MAX_OUTPUT_CHUNK_BYTES,
  OUTPUT_WINDOW_BYTES,
  execFail,
  fromBase64Url,
  ok,
  toBase64Url,
} from '@tether/shared-protocol';
import type { KillSignal, ProcessHandle, SpawnError, SpawnRequest } from '../execution-context.js';

interface Live {
  handle: ProcessHandle;
  /** Bytes sent in `proc.output` and not yet acknowledged by the host. */
  unacked: number;
  paused: boolean;
}

/**
 * Processes the host streams (`proc.*`): output goes out as `proc.output` events in chunks of at
 * most MAX_OUTPUT_CHUNK_BYTES, and once OUTPUT_WINDOW_BYTES are unacknowledged the process's pipes
 * stop being read (it blocks; nothing is dropped) until the host's `proc.ack` opens the window
 * again. At most MAX_LIVE_STREAMS at once. They all die with the link: output lost in a drop
 * cannot be sent again, so a stream never outlives the host that reads it.
 */
export class LiveProcesses {
  private readonly live = new Map<string, Live>();

  constructor(
    private readonly start: (request: SpawnRequest) => Promise<Result<ProcessHandle, SpawnError>>,
    private readonly send: (event: MachineEvent) => void,
  ) {}

  get count(): number {
    return this.live.size;
  }

  async spawn(procId: string, request: SpawnRequest): Promise<Result<Record<string, never>, SpawnError>> {
    if (this.live.has(procId)) return execFail('invalid-params', `process ${procId} is running already`);
    if (this.live.size >= MAX_LIVE_STREAMS) {
      return execFail('busy', `${MAX_LIVE_STREAMS} live processes run on this machine already`);
    }
    const started = await this.start(request);
    if (!started.ok) return started;
    const handle = started.value;
    const entry: Live = { handle, unacked: 0, paused: false };
    this.live.set(procId, entry);
    handle.onOutput((stream, chunk) => {
      for (let at = 0; at < chunk.length; at += MAX_OUTPUT_CHUNK_BYTES) {
        const piece = chunk.subarray(at, at + MAX_OUTPUT_CHUNK_BYTES);
        this.send({ type: 'proc.output', procId, stream, data: toBase64Url(piece) });
        entry.unacked += piece.length;
      }
      if (!entry.paused && entry.unacked >= OUTPUT_WINDOW_BYTES) {
        entry.paused = true;
        handle.pause();
      }
    });
    void handle.exited.then((exit) => {
      if (this.live.get(procId) !== entry) return;
      this.live.delete(procId);
      const { code, signal } = exit.ok ? exit.value : { code: null, signal: null };
      this.send({ type: 'proc.exit', procId, code, signal });
    });
    return ok({});
  }

  /** The host took `bytes` more of this process's output. */
  ack(procId: string, bytes: number): void {
    const entry = this.live.get(procId);
    if (!entry) return;
    entry.unacked = Math.max(0, entry.unacked - bytes);
    // Reopened at half the window, so a steady reader is not paused and resumed on every chunk.
    if (entry.paused && entry.unacked <= OUTPUT_WINDOW_BYTES / 2) {
      entry.paused = false;
      entry.handle.resume();
    }
  }

  async write(procId: string, data: string): Promise<Result<Record<string, never>, ExecError>> {
    const entry = this.live.get(procId);
    if (!entry) return execFail('not-found', `no live process ${procId}`);
    const bytes = fromBase64Url(data);
    if (!bytes) return execFail('invalid-params', 'input is not base64url');
    const written = await entry.handle.write(bytes);
    return written.ok ? ok({}) : written;
  }

  closeInput(procId: string): Result<Record<string, never>, ExecError> {
    this.live.get(procId)?.handle.closeInput();
    return ok({});
  }

  kill(procId: string, signal?: KillSignal): Result<Record<string, never>, ExecError> {
    this.live.get(procId)?.handle.kill(signal);
    return ok({});
  }

  /** The link dropped: every live process is killed and forgotten. */
  killAll(): void {
    for (const entry of this.live.values()) entry.handle.kill('SIGKILL');
    this.live.clear();
  }
}
