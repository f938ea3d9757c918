import { existsSync, readFileSync, statSync } from 'node:fs';
import type { Clock, Result, Transport } from '@tether/shared-protocol';
import { MachineName, fail, fromBase64UrlExact, ok, secureRandom, systemClock } from '@tether/shared-protocol';
import * as v from 'valibot';
import { machineSocketUrl, wsConnect } from '../link/ws-connect.js';
import type { AgentState } from './machine-agent.js';
import { MachineAgent } from './machine-agent.js';
import {
  HostKeyPins,
  loadOrCreateMachineId,
  machinePaths,
  prepareMachineDir,
  readShareStatus,
  writeShareStatus,
} from './machine-data.js';
import { MachineExecutor } from './machine-executor.js';
import { homeFolder, privatePaths } from '../private-paths.js';
import { acquireShareLock, processAlive, readLockHolder } from './share-lock.js';
import { checkSharedRoots } from './shared-roots.js';

export interface ShareOptions {
  hostUrl: string;
  tokenFile: string;
  name: string;
  roots: readonly string[];
  /** The machine's data dir (resolveMachineDir). */
  dir: string;
  /** `--host-key`, base64url of the host's 32-byte box key. */
  hostKey?: string;
  version: string;
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Test seam: how the host is dialled (a WebSocket to its machine endpoint by default). */
  connect?: () => Promise<Transport>;
  onState?: (state: AgentState) => void;
  onNotice?: (text: string) => void;
}

/** A share that is set up and running: `done` resolves when it stops. */
export interface RunningShare {
  machineId: string;
  roots: string[];
  agent: MachineAgent;
  done: Promise<Extract<AgentState, { name: 'stopped' }>>;
  /** Stops the link, the background tasks, and releases the lock. */
  stop(): Promise<void>;
}

/**
 * `tether machine share`: checks everything a share needs before it dials (the token file is
 * owner-only, the roots exist and are not private, no other share process serves this machine),
 * then keeps the machine linked to its host until it is stopped or refused for good. The token is
 * read from its file and goes nowhere but the sealed registration: never to argv, a log or status.
 */
export async function startShare(options: ShareOptions): Promise<Result<RunningShare>> {
  const clock = options.clock ?? systemClock;
  if (!v.safeParse(MachineName, options.name).success) {
    return fail(
      'invalid-params',
      `${JSON.stringify(options.name.slice(0, 80))} is not a machine name (letters, digits, ".", "_", "-"; not "local")`,
    );
  }
  const url = machineSocketUrl(options.hostUrl);
  if (!url) return fail('invalid-params', `${options.hostUrl} is not an http(s):// URL of a host`);
  let hostKey: Uint8Array | undefined;
  if (options.hostKey !== undefined) {
    hostKey = fromBase64UrlExact(options.hostKey, 32);
    if (!hostKey) return fail('invalid-params', '--host-key is not a host key (43 characters of base64url)');
  }
  const token = readTokenFile(options.tokenFile);
  if (!token.ok) return token;
  const paths = machinePaths(options.dir);
  const prepared = prepareMachineDir(paths.dir);
  if (!prepared.ok) return prepared;
  const privates = privatePaths({ env: options.env, extra: [paths.dir, options.tokenFile] });
  const roots = await checkSharedRoots(options.roots, privates);
  if (!roots.ok) return roots;
  const machineId = loadOrCreateMachineId(paths);
  if (!machineId.ok) return machineId;
  const lock = acquireShareLock(paths.lock, clock.now());
  if (!lock.ok) return lock;

  const executor = new MachineExecutor({ roots: roots.value, privates, tasksDir: paths.tasks, clock });
  const home = homeFolder(options.env);
  const pins = new HostKeyPins(paths.hostKeys);
  const agent = new MachineAgent({
    hostUrl: options.hostUrl,
    token: token.value,
    machineId: machineId.value,
    name: options.name,
    roots: roots.value,
    version: options.version,
    ...(home !== undefined ? { home } : {}),
    executor,
    pins,
    ...(hostKey ? { hostKey } : {}),
    connect: options.connect ?? (() => wsConnect(url)),
    clock,
    random: secureRandom,
    jitter: Math.random,
    onNotice: options.onNotice,
    onState: (state) => {
      writeShareStatus(paths, {
        pid: process.pid,
        machineId: machineId.value,
        name: options.name,
        host: options.hostUrl,
        state: state.name,
        since: state.name === 'linked' ? state.since : clock.now(),
        message: describeState(state, options.hostUrl, clock.now()),
      });
      options.onState?.(state);
    },
  });
  const done = agent.run();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      agent.stop('stopped by the person');
      await done;
      await executor.close();
      lock.value.release();
    })());
  // Stopped for good by the host: the tasks and the lock go too.
  void done.then(() => stop());
  return ok({ machineId: machineId.value, roots: roots.value, agent, done, stop });
}

/** The token, from a file only its owner can read; never echoed. */
export function readTokenFile(path: string): Result<string> {
  let mode: number;
  try {
    const info = statSync(path);
    if (!info.isFile()) return fail('invalid-params', `${path} is not a file`);
    mode = info.mode;
  } catch {
    return fail('not-found', `the token file ${path} does not exist`);
  }
  if ((mode & 0o077) !== 0) {
    return fail(
      'forbidden',
      `${path} can be read by others (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
    );
  }
  const token = readFileSync(path, 'utf8').trim();
  if (token === '' || token.length > 200 || /\s/.test(token))
    return fail('invalid-params', `${path} does not hold a token`);
  return ok(token);
}

export function describeState(state: AgentState, hostUrl: string, now: number): string {
  switch (state.name) {
    case 'connecting':
      return state.attempt === 0
        ? `connecting to ${hostUrl}`
        : `connecting to ${hostUrl} (attempt ${state.attempt + 1})`;
    case 'linked':
      return `linked to ${hostUrl} as ${state.machineId}`;
    case 'retrying':
      return `${state.why}; trying again in ${Math.max(1, Math.round((state.at - now) / 1000))} s`;
    case 'stopped':
      return state.forGood ? `stopped for good: ${state.why}` : state.why;
  }
}

export interface ShareStatusReport {
  /** Whether a share process holds this machine's lock now. */
  running: boolean;
  pid: number | null;
  machineId: string | null;
  name: string | null;
  host: string | null;
  state: AgentState['name'] | null;
  since: number | null;
  message: string;
}

/** `tether machine status`: whether this computer is linked, to which host, since when. */
export function shareStatus(dir: string, alive: (pid: number) => boolean = processAlive): ShareStatusReport {
  const paths = machinePaths(dir);
  const holder = readLockHolder(paths.lock);
  const running = holder !== undefined && alive(holder.pid);
  const status = readShareStatus(paths);
  const machineId = existsSync(paths.machineId) ? readFileSync(paths.machineId, 'utf8').trim() : null;
  if (!status) {
    return {
      running,
      pid: running ? holder.pid : null,
      machineId,
      name: null,
      host: null,
      state: null,
      since: null,
      message: running ? 'starting' : 'this computer has never been shared',
    };
  }
  // A status left by a process that is gone says what it last did, not what is happening.
  const current = running && holder.pid === status.pid;
  return {
    running: current,
    pid: current ? status.pid : null,
    machineId: status.machineId,
    name: status.name,
    host: status.host,
    state: current ? status.state : 'stopped',
    since: status.since,
    message: current ? status.message : `not running (last: ${status.message})`,
  };
}
