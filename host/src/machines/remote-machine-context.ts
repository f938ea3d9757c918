import type {
  ExecError,
  ExecErrorCode,
  MachineMethodName,
  MachineParams,
  MachineResult,
  Result,
  TaskInfo,
} from '@tether/shared-protocol';
import { EXEC_ERROR_CODES, FS_ERROR_CODES, execFail, ok, decodeMachineEvent } from '@tether/shared-protocol';
import type {
  DirListing,
  ExecOutcome,
  ExecRequest,
  ExecRunError,
  ExecutionContext,
  FileStat,
  FileText,
  ReadOptions,
  FileWritten,
  FsError,
  ProcessHandle,
  SearchError,
  SearchFound,
  SearchQuery,
  SpawnError,
  SpawnRequest,
} from '@tether/machine';
import type { DirListing as FolderListing } from '@tether/shared-protocol';
import type { MachineChannel } from './machine-channel.js';
import { NOT_SENT_INTERRUPTED } from './machine-channel.js';
import { RemoteProcess } from './remote-process.js';

/** What a session's run lends a machine context: where its notices go, and its interrupt. */
export interface RunHooks {
  notice(level: 'info' | 'warning', text: string): void;
  signal: AbortSignal;
}

/**
 * A machine as an ExecutionContext: every operation is a machine-protocol call over its channel,
 * its reply checked against the method's schema. Nothing above this interface knows whether it
 * has this or the local context. Bound to a run (`hooks`), calls wait for an offline machine with
 * a notice in the transcript ("waiting for laptop…"); unbound (creating a session, the app's
 * folder picker) they answer `unreachable` at once.
 */
export class RemoteMachineContext implements ExecutionContext {
  private waitingSaid = false;

  constructor(
    private readonly channel: MachineChannel,
    private readonly newId: (prefix: string) => string,
    private readonly hooks?: RunHooks,
  ) {}

  get place(): string {
    return this.channel.name;
  }

  /** Known once the machine has registered since the host started (a read waits for that first). */
  get home(): string | undefined {
    return this.channel.home;
  }

  async exec(request: ExecRequest): Promise<Result<ExecOutcome, ExecRunError>> {
    const callId = this.newId('x');
    const started = Date.now();
    const cancel = () => void this.channel.call('exec.cancel', { callId }, { wait: false });
    request.signal.addEventListener('abort', cancel, { once: true });
    try {
      const result = await this.call(
        'exec.run',
        {
          callId,
          command: request.command,
          cwd: request.cwd,
          timeoutMs: request.timeoutMs,
          maxOutputBytes: request.maxOutputBytes,
        },
        request.signal,
      );
      if (result.ok) return result;
      if (request.signal.aborted && result.error.message === NOT_SENT_INTERRUPTED) {
        // Interrupted while waiting: nothing ran.
        return ok({
          exitCode: null,
          signal: null,
          output: '',
          droppedBytes: 0,
          timedOut: false,
          aborted: true,
          durationMs: Date.now() - started,
        });
      }
      return execFail(
        narrow(result.error.code, ['not-found', 'not-a-folder', 'io', 'unreachable']),
        result.error.message,
      );
    } finally {
      request.signal.removeEventListener('abort', cancel);
    }
  }

  async spawn(request: SpawnRequest): Promise<Result<ProcessHandle, SpawnError>> {
    const procId = this.newId('p');
    const process = new RemoteProcess(this.channel, procId);
    const started = await this.call('proc.spawn', {
      procId,
      command: 'shell' in request.command ? request.command : { ...request.command, args: [...request.command.args] },
      cwd: request.cwd,
      ...(request.root !== undefined ? { root: request.root } : {}),
      ...(request.env ? { env: request.env } : {}),
    });
    if (!started.ok) {
      process.abandon();
      return execFail(
        narrow(started.error.code, [...FS_ERROR_CODES, 'invalid-params', 'busy', 'unreachable']),
        started.error.message,
      );
    }
    process.started();
    return ok(process);
  }

  async checkFolder(path: string): Promise<Result<string, FsError>> {
    const result = await this.call('fs.checkFolder', { path });
    return result.ok ? ok(result.value.path) : fsFail(result.error);
  }

  async readFile(
    root: string,
    path: string,
    maxBytes: number,
    options: ReadOptions = {},
  ): Promise<Result<FileText, FsError>> {
    // A machine from before `head` drops the field and refuses a large file as too large.
    const result = await this.call('fs.read', {
      root,
      path,
      maxBytes,
      ...(options.head === true ? { head: true } : {}),
    });
    if (!result.ok) return fsFail(result.error);
    // Decoded by the very function a local read uses (a bad sequence becomes U+FFFD), once, from
    // the bytes in place: Buffer's decoder took three quarters of TextDecoder's time on 1 MiB.
    const { body } = result.value;
    const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    return ok({ text, size: result.value.size });
  }

  async realPath(root: string, path: string): Promise<Result<string, FsError>> {
    const result = await this.call('fs.realPath', { root, path });
    return result.ok ? ok(result.value.path) : fsFail(result.error);
  }

  async stat(root: string, path: string): Promise<Result<FileStat, FsError>> {
    const result = await this.call('fs.stat', { root, path });
    return result.ok ? result : fsFail(result.error);
  }

  async writeFile(root: string, path: string, text: string): Promise<Result<FileWritten, FsError>> {
    const result = await this.call('fs.write', { root, path, text });
    return result.ok ? result : fsFail(result.error);
  }

  async listDir(root: string, path: string, maxEntries: number): Promise<Result<DirListing, FsError>> {
    const result = await this.call('fs.list', { root, path, maxEntries });
    return result.ok ? result : fsFail(result.error);
  }

  async search(root: string, query: SearchQuery): Promise<Result<SearchFound, SearchError>> {
    const result = await this.call('fs.search', { root, query });
    if (result.ok) return result;
    return execFail(
      narrow(result.error.code, [...FS_ERROR_CODES, 'invalid-params', 'timeout', 'busy', 'unreachable']),
      result.error.message,
    );
  }

  /** The app's folder picker on this machine: its roots, or the folders in one of them. */
  listDirs(path?: string): Promise<Result<FolderListing, ExecError>> {
    return this.call('fs.listDirs', path === undefined ? {} : { path });
  }

  startTask(command: string, cwd: string): Promise<Result<{ task: TaskInfo }, ExecError>> {
    return this.call('tasks.start', { command, cwd });
  }

  listTasks(): Promise<Result<{ tasks: TaskInfo[] }, ExecError>> {
    return this.call('tasks.list', {});
  }

  waitTask(taskId: string, timeoutMs: number): Promise<Result<{ task: TaskInfo }, ExecError>> {
    return this.call('tasks.wait', { taskId, timeoutMs });
  }

  readTask(taskId: string, offset: number, maxBytes: number): Promise<Result<MachineResult<'tasks.read'>, ExecError>> {
    return this.call('tasks.read', { taskId, offset, maxBytes });
  }

  killTask(taskId: string): Promise<Result<MachineResult<'tasks.kill'>, ExecError>> {
    return this.call('tasks.kill', { taskId });
  }

  /** Task exits as the machine reports them (after a reconnect too). */
  onTaskExit(listener: (task: TaskInfo) => void): () => void {
    return this.channel.onEvent((raw) => {
      const decoded = decodeMachineEvent(raw);
      if (decoded.kind === 'event' && decoded.event.type === 'task.exit') listener(decoded.event.task);
    });
  }

  /** One call (its reply decoded by the channel), its error as an execution error. */
  private async call<M extends MachineMethodName>(
    method: M,
    params: MachineParams<M>,
    signal = this.hooks?.signal,
  ): Promise<Result<MachineResult<M>, ExecError>> {
    const result = await this.channel.call(method, params, {
      wait: this.hooks !== undefined,
      ...(signal ? { signal } : {}),
      onWaiting: () => {
        if (this.waitingSaid) return;
        this.waitingSaid = true;
        this.hooks?.notice('warning', `waiting for ${this.channel.name}…`);
      },
      onResumed: () => {
        if (!this.waitingSaid) return;
        this.waitingSaid = false;
        this.hooks?.notice('info', `${this.channel.name} is back`);
      },
    });
    if (!result.ok) return { ok: false, error: { code: asExecCode(result.error.code), message: result.error.message } };
    return result;
  }
}

const EXEC_CODES: ReadonlySet<string> = new Set(EXEC_ERROR_CODES);

/** A machine's error code as an execution code; anything else it might say is an I/O failure. */
function asExecCode(code: string): ExecErrorCode {
  return EXEC_CODES.has(code) ? (code as ExecErrorCode) : 'io';
}

function narrow<C extends ExecErrorCode>(code: ExecErrorCode, allowed: readonly C[]): C {
  return (allowed as readonly string[]).includes(code) ? (code as C) : ('io' as C);
}

function fsFail(error: ExecError): { ok: false; error: FsError } {
  return execFail(narrow(error.code, [...FS_ERROR_CODES, 'unreachable']), error.message);
}
