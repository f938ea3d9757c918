import type { Clock, Dispatch, MachineEvent, Result, TaskInfo } from '@tether/shared-protocol';
import {
  MACHINE_METHODS,
  MAX_MACHINE_CALLS_IN_FLIGHT,
  MAX_MACHINE_PTYS,
  createDispatch,
  decodeMachineEvent,
  fail,
  secureRandom,
  systemClock,
  toBase64Url,
} from '@tether/shared-protocol';
import { LocalContext } from '../local-context.js';
import { BackgroundTasks } from './background-tasks.js';
import { LiveProcesses } from './live-processes.js';
import { LivePtys } from './live-ptys.js';
import { machineHandlers } from './machine-handlers.js';
import type { PtyPort } from '../terminal/pty-port.js';
import { NodePtyPort } from '../terminal/node-pty-port.js';

export interface MachineExecutorOptions {
  /** The shared folders, as real paths (checked by checkSharedRoots). */
  roots: readonly string[];
  /**
   * Real paths never reachable (privatePaths, with the machine's data dir and token file), nor
   * the files among them under other names (hard links).
   */
  privates: readonly string[];
  /** Where background task logs go (`<data dir>/tasks`). */
  tasksDir: string;
  clock?: Clock;
  /** Where terminals (`pty.*`) run: this computer's PTYs by default. */
  pty?: PtyPort;
  /** Terminals open at once; MAX_MACHINE_PTYS by default. */
  maxPtys?: number;
  /** The environment terminal shells start from (credentials are taken out); process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** Test seam: runs between a file's confinement check and its open. */
  beforeOpen?: (path: string) => Promise<void>;
}

/**
 * The machine's side of the link: a guard that never trusts the host. Requests go through the
 * typed dispatch to the handler table (machine-handlers.ts), which does all its file and folder
 * work through one LocalContext confined to the shared roots and outside every private path
 * (credentials, Tether's own data, this machine's data dir): `..`, absolute paths and symlinks
 * that lead out are refused, listings and searches leave private entries out, and files are
 * opened so that a symlink swapped in after the check, or a hard link to a private file, is
 * caught. It is the same LocalContext the host uses for its own computer.
 */
export class MachineExecutor {
  readonly context: LocalContext;
  readonly processes: LiveProcesses;
  readonly tasks: BackgroundTasks;
  readonly ptys: LivePtys;
  private readonly calls = new Map<string, AbortController>();
  private readonly dispatch: Dispatch<void>;
  private inFlight = 0;
  private send: ((event: MachineEvent) => boolean) | undefined;

  constructor(options: MachineExecutorOptions) {
    const clock = options.clock ?? systemClock;
    this.context = new LocalContext({
      roots: options.roots,
      privates: options.privates,
      ...(options.beforeOpen ? { beforeOpen: options.beforeOpen } : {}),
    });
    const start = this.context.spawn.bind(this.context);
    this.processes = new LiveProcesses(start, (event) => void this.send?.(event));
    this.ptys = new LivePtys(
      options.pty ?? new NodePtyPort(),
      (event) => void this.send?.(event),
      options.maxPtys ?? MAX_MACHINE_PTYS,
    );
    this.tasks = new BackgroundTasks({
      dir: options.tasksDir,
      clock,
      newId: () => `t_${toBase64Url(secureRandom(9))}`,
      start,
    });
    this.dispatch = createDispatch(
      MACHINE_METHODS,
      machineHandlers({
        context: this.context,
        roots: options.roots,
        processes: this.processes,
        ptys: this.ptys,
        tasks: this.tasks,
        clock,
        env: options.env ?? process.env,
        calls: this.calls,
      }),
    );
  }

  /** A host is linked: events go to it (queued task exits first). */
  attach(send: (event: MachineEvent) => boolean): void {
    this.send = send;
    this.tasks.attach((task: TaskInfo) => send({ type: 'task.exit', task }));
  }

  /** The link dropped: live processes and terminals die with it; background tasks and running
   * commands go on. */
  detach(): void {
    this.send = undefined;
    this.tasks.detach();
    this.processes.killAll();
    this.ptys.killAll();
  }

  async close(): Promise<void> {
    this.detach();
    for (const call of this.calls.values()) call.abort();
    await this.tasks.close();
  }

  /** An event from the host (flow control). Unknown or malformed ones are skipped. */
  event(input: unknown): void {
    const decoded = decodeMachineEvent(input);
    if (decoded.kind !== 'event') return;
    if (decoded.event.type === 'proc.ack') this.processes.ack(decoded.event.procId, decoded.event.bytes);
    else if (decoded.event.type === 'pty.ack') this.ptys.ack(decoded.event.ptyId, decoded.event.bytes);
  }

  /**
   * One request from the host, through the typed dispatch: a known method, params its schema
   * accepts, then its handler, whose result is checked against its schema before it leaves. At
   * most MAX_MACHINE_CALLS_IN_FLIGHT are served at once; one more is refused with `busy`.
   */
  async handle(method: string, params: unknown): Promise<Result<unknown>> {
    if (this.inFlight >= MAX_MACHINE_CALLS_IN_FLIGHT) {
      return fail('busy', `${MAX_MACHINE_CALLS_IN_FLIGHT} requests are being served already`);
    }
    this.inFlight++;
    try {
      return await this.dispatch(method, params, undefined);
    } finally {
      this.inFlight--;
    }
  }
}
