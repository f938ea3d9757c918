import type { ExecError, MachineEvent, Result } from '@tether/shared-protocol';
import { MAX_LIVE_STREAMS, execFail, fromBase64Url, ok, toBase64Url } from '@tether/shared-protocol';
import type { KillSignal, ProcessHandle, SpawnError, SpawnRequest } from '../execution-context.js';
import { LiveStreams } from './live-streams.js';

/**
 * Processes the host streams (`proc.*`): output goes out as `proc.output` events through each
 * process's credit window (LiveStreams), so once the window is full the process's pipes stop
 * being read (it blocks; nothing is dropped) until the host's `proc.ack` opens it again. At most
 * MAX_LIVE_STREAMS at once. They all die with the link: output lost in a drop cannot be sent
 * again, so a stream never outlives the host that reads it.
 */
export class LiveProcesses {
  private readonly live = new LiveStreams<ProcessHandle>();

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
    const entry = this.live.add(procId, handle);
    handle.onOutput((stream, chunk) =>
      this.live.output(entry, chunk, (piece) =>
        this.send({ type: 'proc.output', procId, stream, data: toBase64Url(piece) }),
      ),
    );
    void handle.exited.then((exit) => {
      if (!this.live.end(procId, entry)) return;
      const { code, signal } = exit.ok ? exit.value : { code: null, signal: null };
      this.send({ type: 'proc.exit', procId, code, signal });
    });
    return ok({});
  }

  /** The host took `bytes` more of this process's output. */
  ack(procId: string, bytes: number): void {
    this.live.ack(procId, bytes);
  }

  async write(procId: string, data: string): Promise<Result<Record<string, never>, ExecError>> {
    const handle = this.live.handle(procId);
    if (!handle) return execFail('not-found', `no live process ${procId}`);
    const bytes = fromBase64Url(data);
    if (!bytes) return execFail('invalid-params', 'input is not base64url');
    const written = await handle.write(bytes);
    return written.ok ? ok({}) : written;
  }

  closeInput(procId: string): Result<Record<string, never>, ExecError> {
    this.live.handle(procId)?.closeInput();
    return ok({});
  }

  kill(procId: string, signal?: KillSignal): Result<Record<string, never>, ExecError> {
    this.live.handle(procId)?.kill(signal);
    return ok({});
  }

  /** The link dropped: every live process is killed and forgotten. */
  killAll(): void {
    this.live.clear((handle) => handle.kill('SIGKILL'));
  }
}
