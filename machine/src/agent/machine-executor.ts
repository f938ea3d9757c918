import type { Dirent } from 'node:fs';
import { mkdir, opendir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { Clock, ExecError, FsErrorCode, MachineEvent, Result, TaskInfo } from '@tether/shared-protocol';
import {
  MACHINE_METHODS,
  MAX_MACHINE_CALLS_IN_FLIGHT,
  MAX_MACHINE_PTYS,
  decodeMachineEvent,
  execFail,
  fail,
  isMachineMethod,
  ok,
  secureRandom,
  systemClock,
  toBase64Url,
} from '@tether/shared-protocol';
import * as v from 'valibot';
import { resolveInside } from '../confine.js';
import { LocalContext } from '../local-context.js';
import { BackgroundTasks } from './background-tasks.js';
import type { OpenGuard } from './confined-files.js';
import { checkIdentity, readConfined, writeConfined } from './confined-files.js';
import { listFolder } from '../list-folder.js';
import { LiveProcesses } from './live-processes.js';
import { LivePtys } from './live-ptys.js';
import type { PtyPort } from '../terminal/pty-port.js';
import { NodePtyPort } from '../terminal/node-pty-port.js';
import { loginShell, shellEnvironment } from '../terminal/pty-terminals.js';
import { PrivateFiles } from './private-files.js';
import { isPrivatePath } from './private-paths.js';
import { rootOf } from './shared-roots.js';

/** Folders one `fs.listDirs` reply lists; a bigger folder says `truncated`. */
const MAX_LISTED_DIRS = 500;

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
  context?: LocalContext;
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

/** A reply: a value, or an error with a stable code (an ExecError is one). */
type Outcome = Result<unknown>;

/**
 * The machine's side of every host request: a guard that never trusts the host. Every path and
 * working folder is resolved to a real path that must lie inside a shared root and outside every
 * private path (credentials, Tether's own data, this machine's data dir); `..`, absolute paths
 * and symlinks that lead out are refused, listings and searches leave private entries out, and
 * files are opened so that a symlink swapped in after the check, or a hard link to a private file,
 * is caught. Then the work is done by the same LocalContext the host uses for its own computer.
 */
export class MachineExecutor {
  readonly context: LocalContext;
  readonly processes: LiveProcesses;
  readonly tasks: BackgroundTasks;
  readonly ptys: LivePtys;
  private readonly calls = new Map<string, AbortController>();
  private readonly privateFiles: PrivateFiles;
  private readonly guard: OpenGuard;
  private inFlight = 0;
  private send: ((event: MachineEvent) => boolean) | undefined;

  constructor(private readonly options: MachineExecutorOptions) {
    this.privateFiles = new PrivateFiles(options.privates);
    this.guard = { allowed: this.allowed, privateFiles: this.privateFiles };
    this.context = options.context ?? new LocalContext({ privates: options.privates, privateFiles: this.privateFiles });
    const start = this.context.spawn.bind(this.context);
    this.processes = new LiveProcesses(start, (event) => void this.send?.(event));
    this.ptys = new LivePtys(
      options.pty ?? new NodePtyPort(),
      (event) => void this.send?.(event),
      options.maxPtys ?? MAX_MACHINE_PTYS,
    );
    this.tasks = new BackgroundTasks({
      dir: options.tasksDir,
      clock: options.clock ?? systemClock,
      newId: () => `t_${toBase64Url(secureRandom(9))}`,
      start,
    });
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

  /** One request from the host: decoded against the method table, then served. */
  async handle(method: string, params: unknown): Promise<Outcome> {
    if (!isMachineMethod(method)) return fail('unknown-method', `this machine does not serve ${method.slice(0, 100)}`);
    const parsed = v.safeParse(MACHINE_METHODS[method].params, params);
    if (!parsed.success) {
      return fail(
        'invalid-params',
        `${method}: ${parsed.issues
          .map((i) => i.message)
          .join('; ')
          .slice(0, 500)}`,
      );
    }
    if (this.inFlight >= MAX_MACHINE_CALLS_IN_FLIGHT) {
      return fail('busy', `${MAX_MACHINE_CALLS_IN_FLIGHT} requests are being served already`);
    }
    this.inFlight++;
    try {
      return await this.serve(method, parsed.output as never);
    } finally {
      this.inFlight--;
    }
  }

  private async serve(method: keyof typeof MACHINE_METHODS, p: Record<string, never>): Promise<Outcome> {
    const params = p as Record<string, unknown>;
    const str = (key: string) => params[key] as string;
    const num = (key: string) => params[key] as number;
    switch (method) {
      case 'machine.ping':
        return ok({ now: (this.options.clock ?? systemClock).now() });
      case 'fs.checkFolder': {
        const folder = await this.folder(str('path'));
        return folder.ok ? ok({ path: folder.value }) : folder;
      }
      case 'fs.read': {
        const at = await this.within(str('root'), str('path'));
        if (!at.ok) return at;
        return readConfined(at.value, str('path'), num('maxBytes'), this.guard, this.hook(at.value));
      }
      case 'fs.write': {
        const at = await this.within(str('root'), str('path'));
        if (!at.ok) return at;
        // Missing folders are made: they lie inside the root, since the path was resolved into it.
        await mkdir(dirname(at.value), { recursive: true }).catch(() => undefined);
        return writeConfined(at.value, str('path'), str('text'), this.guard, this.hook(at.value));
      }
      case 'fs.list':
        return this.list(str('root'), str('path'), num('maxEntries'));
      case 'fs.realPath': {
        const at = await this.within(str('root'), str('path'));
        return at.ok ? ok({ path: at.value }) : at;
      }
      case 'fs.stat': {
        const at = await this.within(str('root'), str('path'));
        if (!at.ok) return at;
        try {
          const info = await stat(at.value);
          const same = await checkIdentity(info, str('path'), this.privateFiles);
          if (!same.ok) return same;
          const type = info.isFile() ? 'file' : info.isDirectory() ? 'dir' : 'other';
          return ok({ type, size: info.size, modifiedAt: Math.floor(info.mtimeMs) });
        } catch (error) {
          return ioError(str('path'), error);
        }
      }
      case 'fs.search': {
        const folder = await this.folder(str('root'));
        if (!folder.ok) return folder;
        const query = params.query as { path?: string } & Parameters<LocalContext['search']>[1];
        if (query.path !== undefined) {
          const start = await this.within(folder.value, query.path);
          if (!start.ok) return start;
        }
        const found = await this.context.search(folder.value, query);
        if (!found.ok) return found;
        // The context never walks into a private path; this holds a given context to the same rule.
        const hits = found.value.hits.filter(
          (hit) => !isPrivatePath(join(folder.value, hit.path), this.options.privates),
        );
        return ok({ ...found.value, hits });
      }
      case 'fs.listDirs':
        return this.listDirs(params.path as string | undefined);
      case 'exec.run':
        return this.run(
          params as { callId: string; command: string; cwd: string; timeoutMs: number; maxOutputBytes: number },
        );
      case 'exec.cancel':
        this.calls.get(str('callId'))?.abort();
        return ok({});
      case 'proc.spawn': {
        const request = params as {
          procId: string;
          command: never;
          cwd: string;
          root?: string;
          env?: Record<string, string>;
        };
        const cwd =
          request.root === undefined
            ? await this.folder(request.cwd)
            : await this.folderWithin(request.root, request.cwd);
        if (!cwd.ok) return cwd;
        return this.processes.spawn(request.procId, {
          command: request.command,
          cwd: cwd.value,
          ...(request.env ? { env: request.env } : {}),
        });
      }
      case 'proc.write':
        return this.processes.write(str('procId'), str('data'));
      case 'proc.closeInput':
        return this.processes.closeInput(str('procId'));
      case 'proc.kill':
        return this.processes.kill(str('procId'), params.signal as never);
      case 'pty.spawn':
        return this.spawnPty(params as { ptyId: string; cwd?: string; cols: number; rows: number });
      case 'pty.write':
        return this.ptys.write(str('ptyId'), str('data'));
      case 'pty.resize':
        return this.ptys.resize(str('ptyId'), num('cols'), num('rows'));
      case 'pty.kill':
        return this.ptys.kill(str('ptyId'), params.signal as never);
      case 'tasks.start': {
        const cwd = await this.folder(str('cwd'));
        if (!cwd.ok) return cwd;
        return this.tasks.start(str('command'), cwd.value);
      }
      case 'tasks.list':
        return ok({ tasks: this.tasks.list() });
      case 'tasks.wait':
        return this.tasks.wait(str('taskId'), num('timeoutMs'));
      case 'tasks.read':
        return this.tasks.read(str('taskId'), num('offset'), num('maxBytes'));
      case 'tasks.kill':
        return this.tasks.kill(str('taskId'));
    }
  }

  /** Inside a shared root, outside every private folder. */
  private readonly allowed = (real: string): boolean =>
    rootOf(real, this.options.roots) !== undefined && !isPrivatePath(real, this.options.privates);

  private hook(path: string): (() => Promise<void>) | undefined {
    const beforeOpen = this.options.beforeOpen;
    return beforeOpen && (() => beforeOpen(path));
  }

  private refusal(path: string): { ok: false; error: ExecError<'outside-root'> } {
    return execFail(
      'outside-root',
      `${path} is outside the folders this machine shares (${this.options.roots.join(', ')})`,
    );
  }

  /** An existing folder, by real path, inside the shared roots. */
  private async folder(path: string): Promise<Result<string, ExecError<FsErrorCode>>> {
    if (!isAbsolute(path)) return execFail('outside-root', `${path} is not an absolute path`);
    let real: string;
    try {
      real = await realpath(path);
    } catch (error) {
      return ioError(path, error);
    }
    if (!this.allowed(real)) return this.refusal(path);
    try {
      return (await stat(real)).isDirectory() ? ok(real) : execFail('not-a-folder', `${path} is not a folder`);
    } catch (error) {
      return ioError(path, error);
    }
  }

  /** `path` resolved inside the folder `root` (itself inside the shared roots), not private. */
  private async within(root: string, path: string): Promise<Result<string, ExecError<FsErrorCode>>> {
    const folder = await this.folder(root);
    if (!folder.ok) return folder;
    const resolved = await resolveInside(folder.value, path);
    if (!resolved.ok) return resolved;
    if (isPrivatePath(resolved.value, this.options.privates)) {
      return execFail('outside-root', `${path} is private on this machine (credentials or Tether's data)`);
    }
    return resolved;
  }

  private async folderWithin(root: string, path: string): Promise<Result<string, ExecError<FsErrorCode>>> {
    const at = await this.within(root, path);
    if (!at.ok) return at;
    try {
      return (await stat(at.value)).isDirectory() ? at : execFail('not-a-folder', `${path} is not a folder`);
    } catch (error) {
      return ioError(path, error);
    }
  }

  /** The login shell on a PTY, in a folder inside the shared roots (relative to the first). */
  private async spawnPty(p: { ptyId: string; cwd?: string; cols: number; rows: number }): Promise<Outcome> {
    const full = this.ptys.full();
    if (!full.ok) return full;
    const [first] = this.options.roots;
    if (first === undefined) return execFail('outside-root', 'this machine shares no folder');
    const requested = p.cwd ?? first;
    const cwd = isAbsolute(requested) ? await this.folder(requested) : await this.folderWithin(first, requested);
    if (!cwd.ok) return cwd;
    const env = this.options.env ?? process.env;
    return this.ptys.spawn(p.ptyId, {
      shell: loginShell(env),
      cwd: cwd.value,
      env: shellEnvironment(env),
      cols: p.cols,
      rows: p.rows,
    });
  }

  private async run(p: {
    callId: string;
    command: string;
    cwd: string;
    timeoutMs: number;
    maxOutputBytes: number;
  }): Promise<Outcome> {
    if (this.calls.has(p.callId)) return execFail('invalid-params', `call ${p.callId} is running already`);
    const cwd = await this.folder(p.cwd);
    if (!cwd.ok) return cwd;
    const controller = new AbortController();
    this.calls.set(p.callId, controller);
    try {
      return await this.context.exec({
        command: p.command,
        cwd: cwd.value,
        timeoutMs: p.timeoutMs,
        maxOutputBytes: p.maxOutputBytes,
        signal: controller.signal,
      });
    } finally {
      this.calls.delete(p.callId);
    }
  }

  private async list(root: string, path: string, maxEntries: number): Promise<Outcome> {
    const at = await this.within(root, path);
    if (!at.ok) return at;
    try {
      return ok(await listFolder(at.value, maxEntries, this.options.privates, this.privateFiles));
    } catch (error) {
      return ioError(path, error);
    }
  }

  private async listDirs(path: string | undefined): Promise<Outcome> {
    const { roots, privates } = this.options;
    if (path === undefined) {
      return ok({
        path: null,
        parent: null,
        dirs: roots.map((root) => ({ name: basename(root) || root, path: root })),
        truncated: false,
      });
    }
    const folder = await this.folder(path);
    if (!folder.ok) return folder;
    const real = folder.value;
    const dirs: Dirent[] = [];
    try {
      for await (const entry of await opendir(real)) {
        // Dirent does not follow symlinks: a link to a folder elsewhere is not offered.
        if (entry.isDirectory() && !isPrivatePath(join(real, entry.name), privates)) dirs.push(entry);
      }
    } catch (error) {
      return ioError(path, error);
    }
    dirs.sort(
      (a, b) => Number(a.name.startsWith('.')) - Number(b.name.startsWith('.')) || a.name.localeCompare(b.name),
    );
    return ok({
      path: real,
      parent: roots.includes(real) ? null : dirname(real),
      dirs: dirs.slice(0, MAX_LISTED_DIRS).map((d) => ({ name: d.name, path: join(real, d.name) })),
      truncated: dirs.length > MAX_LISTED_DIRS,
    });
  }
}

function ioError(path: string, error: unknown): { ok: false; error: ExecError<FsErrorCode> } {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return execFail('not-found', `${path} does not exist`);
  if (code === 'ENOTDIR') return execFail('not-a-folder', `${path} is not a folder`);
  return execFail('io', `${path}: ${error instanceof Error ? error.message : String(error)}`);
}
