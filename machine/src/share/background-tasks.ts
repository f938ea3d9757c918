import { constants, mkdirSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, ExecError, Result, TaskInfo } from '@tether/shared-protocol';
import {
  MAX_FINISHED_TASKS,
  MAX_QUEUED_TASK_EXITS,
  MAX_RUNNING_TASKS,
  MAX_TASK_OUTPUT_BYTES,
  execFail,
  ok,
  toBase64Url,
} from '@tether/shared-protocol';
import type { ProcessHandle, SpawnError, SpawnRequest } from '../execution-context.js';

interface Task {
  info: TaskInfo;
  handle: ProcessHandle;
  log: FileHandle;
  logPath: string;
  /** Bytes written to the log so far (the log's size). */
  kept: number;
  /** Writes to the log, in order. */
  writing: Promise<void>;
  done: Promise<void>;
}

export interface BackgroundTasksOptions {
  /** `<machine data dir>/tasks`: owner-only, holds one log per task. */
  dir: string;
  clock: Clock;
  newId: () => string;
  start: (request: SpawnRequest) => Promise<Result<ProcessHandle, SpawnError>>;
  maxOutputBytes?: number;
}

/**
 * Background tasks: commands the host starts and checks on later. They are the machine's own
 * children, so they keep running while the link is down; their exits are queued (at most
 * MAX_QUEUED_TASK_EXITS, the oldest dropped and counted) and sent when the host is back. Output
 * goes to a log under the machine's data dir, capped at MAX_TASK_OUTPUT_BYTES per task; past it
 * the pipes are still drained (the task never blocks on them) and the bytes left out are counted.
 * A log is created exclusively, never through a link planted at its path, and read back through
 * the descriptor the task writes to, never by its path.
 */
export class BackgroundTasks {
  /** Exits not yet sent to a host. */
  private readonly exits: TaskInfo[] = [];
  droppedExits = 0;
  private readonly tasks = new Map<string, Task>();
  private send: ((info: TaskInfo) => boolean) | undefined;

  constructor(private readonly options: BackgroundTasksOptions) {
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  }

  /** A host is linked: queued exits go to it now, later ones as they happen. */
  attach(send: (info: TaskInfo) => boolean): void {
    this.send = send;
    while (this.exits.length > 0) {
      if (!send(this.exits[0]!)) return;
      this.exits.shift();
    }
  }

  detach(): void {
    this.send = undefined;
  }

  get running(): number {
    return [...this.tasks.values()].filter((t) => t.info.state === 'running').length;
  }

  async start(command: string, cwd: string): Promise<Result<{ task: TaskInfo }, SpawnError>> {
    if (this.running >= MAX_RUNNING_TASKS) {
      return execFail('busy', `${MAX_RUNNING_TASKS} background tasks run on this machine already`);
    }
    const id = this.options.newId();
    const logPath = join(this.options.dir, `${id}.log`);
    let log: FileHandle;
    try {
      log = await open(logPath, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    } catch (error) {
      return execFail(
        'io',
        `the task's log could not be created: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const started = await this.options.start({ command: { shell: command }, cwd });
    if (!started.ok) {
      await log.close();
      await unlink(logPath).catch(() => undefined);
      return started;
    }
    const info: TaskInfo = {
      id,
      command,
      cwd,
      startedAt: this.options.clock.now(),
      state: 'running',
      code: null,
      signal: null,
      endedAt: null,
      outputBytes: 0,
      droppedBytes: 0,
    };
    const task: Task = {
      info,
      handle: started.value,
      log,
      logPath,
      kept: 0,
      writing: Promise.resolve(),
      done: Promise.resolve(),
    };
    this.tasks.set(id, task);
    const cap = this.options.maxOutputBytes ?? MAX_TASK_OUTPUT_BYTES;
    task.handle.onOutput((_stream, chunk) => {
      info.outputBytes += chunk.length;
      const room = Math.max(0, cap - task.kept);
      const kept = chunk.subarray(0, room);
      info.droppedBytes += chunk.length - kept.length;
      if (kept.length === 0) return;
      const at = task.kept;
      task.kept += kept.length;
      const copy = Buffer.from(kept);
      task.writing = task.writing.then(() =>
        log.write(copy, 0, copy.length, at).then(
          () => undefined,
          () => undefined,
        ),
      );
    });
    task.done = task.handle.exited.then(async (exit) => {
      await task.writing;
      info.state = 'exited';
      info.endedAt = this.options.clock.now();
      if (exit.ok) {
        info.code = exit.value.code;
        info.signal = exit.value.signal;
      }
      this.exited({ ...info });
      this.forgetOldFinished();
    });
    return ok({ task: { ...info } });
  }

  list(): TaskInfo[] {
    return [...this.tasks.values()].map((t) => ({ ...t.info }));
  }

  /** Waits up to `timeoutMs` for the task to end, and answers with its state either way. */
  async wait(taskId: string, timeoutMs: number): Promise<Result<{ task: TaskInfo }, ExecError>> {
    const task = this.tasks.get(taskId);
    if (!task) return execFail('not-found', `no task ${taskId}`);
    if (task.info.state === 'running' && timeoutMs > 0) {
      const { clock } = this.options;
      let timer: ReturnType<Clock['setTimeout']> | undefined;
      await Promise.race([task.done, new Promise<void>((resolve) => (timer = clock.setTimeout(resolve, timeoutMs)))]);
      if (timer !== undefined) clock.clearTimeout(timer);
    }
    return ok({ task: { ...task.info } });
  }

  async read(
    taskId: string,
    offset: number,
    maxBytes: number,
  ): Promise<Result<{ data: string; offset: number; total: number }, ExecError>> {
    const task = this.tasks.get(taskId);
    if (!task) return execFail('not-found', `no task ${taskId}`);
    await task.writing;
    const total = task.kept;
    const length = Math.max(0, Math.min(maxBytes, total - offset));
    const bytes = Buffer.alloc(length);
    if (length > 0) await task.log.read(bytes, 0, length, offset);
    return ok({ data: toBase64Url(bytes), offset: Math.min(offset, total), total });
  }

  kill(taskId: string): Result<Record<string, never>, ExecError> {
    const task = this.tasks.get(taskId);
    if (!task) return execFail('not-found', `no task ${taskId}`);
    task.handle.kill();
    return ok({});
  }

  /** The agent is stopping: every task is killed and its log closed. */
  async close(): Promise<void> {
    for (const task of this.tasks.values()) task.handle.kill('SIGKILL');
    await Promise.all([...this.tasks.values()].map((t) => t.done));
    await Promise.all([...this.tasks.values()].map((t) => t.log.close().catch(() => undefined)));
  }

  private exited(info: TaskInfo): void {
    if (this.send?.(info)) return;
    if (this.exits.length >= MAX_QUEUED_TASK_EXITS) {
      this.exits.shift();
      this.droppedExits++;
    }
    this.exits.push(info);
  }

  /** Finished tasks past MAX_FINISHED_TASKS go, oldest first, with their logs. */
  private forgetOldFinished(): void {
    const finished = [...this.tasks.values()].filter((t) => t.info.state === 'exited');
    for (const task of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED_TASKS))) {
      this.tasks.delete(task.info.id);
      void task.log
        .close()
        .then(() => unlink(task.logPath))
        .catch(() => undefined);
    }
  }
}
