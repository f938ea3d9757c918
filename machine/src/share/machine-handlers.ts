import { isAbsolute } from 'node:path';
import type { Clock, Handlers, MachineMethods } from '@tether/shared-protocol';
import { execFail, ok } from '@tether/shared-protocol';
import type { LocalContext } from '../local-context.js';
import { loginShell, shellEnvironment } from '../terminal/pty-terminals.js';
import type { BackgroundTasks } from './background-tasks.js';
import type { LiveProcesses } from './live-processes.js';
import type { LivePtys } from './live-ptys.js';

/** What the machine's handlers act with. */
export interface MachineHandlerDeps {
  /** Confined to the shared roots and the private paths: every path and folder goes through it. */
  context: LocalContext;
  /** The shared folders, as real paths; a terminal with no folder starts in the first. */
  roots: readonly string[];
  processes: LiveProcesses;
  ptys: LivePtys;
  tasks: BackgroundTasks;
  clock: Clock;
  /** The environment terminal shells start from (credentials are taken out). */
  env: NodeJS.ProcessEnv;
  /** Commands running now, by `callId`, for `exec.cancel`. */
  calls: Map<string, AbortController>;
}

/**
 * The machine's side of every host request, one handler per method of MACHINE_METHODS. The
 * dispatch has decoded the params against the method's schema before a handler runs, and checks
 * its result on the way out. No handler touches a file or folder itself: the confined
 * LocalContext resolves every path inside the shared roots and outside the private paths, and
 * opens files so that a link swapped in after that check is refused.
 */
export function machineHandlers(deps: MachineHandlerDeps): Handlers<MachineMethods, void> {
  const { context, processes, ptys, tasks, calls } = deps;
  return {
    'machine.ping': () => ok({ now: deps.clock.now() }),
    'fs.checkFolder': async ({ path }) => {
      const folder = await context.checkFolder(path);
      return folder.ok ? ok({ path: folder.value }) : folder;
    },
    'fs.read': ({ root, path, maxBytes, head }) =>
      context.readFileBytes(root, path, maxBytes, head === true ? { head } : {}),
    'fs.write': ({ root, path, text }) => context.writeFile(root, path, text),
    'fs.list': ({ root, path, maxEntries }) => context.listDir(root, path, maxEntries),
    'fs.stat': ({ root, path }) => context.stat(root, path),
    'fs.realPath': async ({ root, path }) => {
      const real = await context.realPath(root, path);
      return real.ok ? ok({ path: real.value }) : real;
    },
    'fs.search': ({ root, query }) => context.search(root, query),
    'fs.listDirs': ({ path }) => context.listDirs(path),
    'exec.run': async ({ callId, command, cwd, timeoutMs, maxOutputBytes }) => {
      if (calls.has(callId)) return execFail('invalid-params', `call ${callId} is running already`);
      // Checked here so a folder outside the roots says `outside-root`, not `not-found`.
      const folder = await context.checkFolder(cwd);
      if (!folder.ok) return folder;
      const controller = new AbortController();
      calls.set(callId, controller);
      try {
        return await context.execChecked({
          command,
          cwd: folder.value,
          timeoutMs,
          maxOutputBytes,
          signal: controller.signal,
        });
      } finally {
        calls.delete(callId);
      }
    },
    'exec.cancel': ({ callId }) => {
      calls.get(callId)?.abort();
      return ok({});
    },
    'proc.spawn': ({ procId, command, cwd, root, env }) =>
      processes.spawn(procId, {
        command,
        cwd,
        ...(root !== undefined ? { root } : {}),
        ...(env ? { env } : {}),
      }),
    'proc.write': ({ procId, data }) => processes.write(procId, data),
    'proc.closeInput': ({ procId }) => processes.closeInput(procId),
    'proc.kill': ({ procId, signal }) => processes.kill(procId, signal),
    'pty.spawn': async ({ ptyId, cwd, cols, rows }) => {
      const full = ptys.full();
      if (!full.ok) return full;
      const [first] = deps.roots;
      if (first === undefined) return execFail('outside-root', 'this machine shares no folder');
      const requested = cwd ?? first;
      // An absolute folder anywhere in the roots; a relative one inside the first.
      const folder = isAbsolute(requested)
        ? await context.checkFolder(requested)
        : await context.checkFolderIn(first, requested);
      if (!folder.ok) return folder;
      return ptys.spawn(ptyId, {
        shell: loginShell(deps.env),
        cwd: folder.value,
        env: shellEnvironment(deps.env),
        cols,
        rows,
      });
    },
    'pty.write': ({ ptyId, data }) => ptys.write(ptyId, data),
    'pty.resize': ({ ptyId, cols, rows }) => ptys.resize(ptyId, cols, rows),
    'pty.kill': ({ ptyId, signal }) => ptys.kill(ptyId, signal),
    'tasks.start': async ({ command, cwd }) => {
      const folder = await context.checkFolder(cwd);
      return folder.ok ? tasks.start(command, folder.value) : folder;
    },
    'tasks.list': () => ok({ tasks: tasks.list() }),
    'tasks.wait': ({ taskId, timeoutMs }) => tasks.wait(taskId, timeoutMs),
    'tasks.read': ({ taskId, offset, maxBytes }) => tasks.read(taskId, offset, maxBytes),
    'tasks.kill': ({ taskId }) => tasks.kill(taskId),
  };
}
