import type { Clock, KeepAwakeStatus, MethodParams, Methods, Result } from '@tether/shared-protocol';
import type { BlobHandlerDeps } from './blob-handlers.js';
import { readBlob, uploadHandlers } from './blob-handlers.js';
import { PROTOCOL_VERSION, fail, ok } from '@tether/shared-protocol';
import type { ApprovalBroker } from '../sessions/approval-broker.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { DeviceStore } from '../store/device-store.js';
import type { EventLog } from '../store/event-log.js';
import { historyHandlers } from './history-handlers.js';
import { terminalHandlers } from './terminal-handlers.js';
import type { TerminalManager } from '../terminals/terminal-manager.js';
import { insideRoots, listDirs } from './folder-browser.js';
import type { Caller } from './caller.js';
import type { AgentCatalog } from '../sessions/acp/agent-catalog.js';
import type { AgentSessions } from '../sessions/acp/agent-sessions.js';
import type { Handlers } from './dispatch.js';
import type { MachineRegistry } from '../machines/machine-registry.js';
import { machineDeviceHandlers, placeFolder } from './machine-handlers.js';
import { answerApproval, publicDeviceInfo, revokeDevice } from './shared-handlers.js';
import type { SessionSteering } from '../sessions/session-steering.js';
import type { TypedCommands } from '../sessions/typed-commands.js';
import { agentControlsHandler, steeringHandlers } from './steering-handlers.js';
import type { Worktrees } from '../git/worktrees.js';
import { archiveSession } from '../git/archive-session.js';

export type DeviceHandlers = Partial<Handlers<Methods, Caller>>;

export interface DeviceHandlerDeps {
  hostId: string;
  hostName: string;
  version: string;
  sessions: SessionManager;
  approvals: ApprovalBroker;
  devices: DeviceStore;
  /** The event log, for history pages and changes. */
  log: EventLog;
  /** Closes a device's live connections (it was revoked); returns how many. */
  disconnectDevice: (deviceId: string) => number;
  /** Folders devices may start sessions in (`--root`). */
  roots: readonly string[];
  /** Folders never offered inside the roots (credentials, Tether's data): `privatePaths()`. */
  privates?: readonly string[];
  /** Models a device may choose; the first is the default. */
  models: readonly string[];
  /** The configured ACP agents, each saying whether it can be started now (and, if not, why and
   * how to set it up): a device offers only those that can, and names the others. */
  agents?: Pick<AgentCatalog, 'list'>;
  /** Agents' own sessions, started at the computer, and continuing them. */
  agentSessions?: Pick<AgentSessions, 'list' | 'continue'>;
  /** Method families this host offers beyond the base set. */
  features: () => readonly string[];
  /** The relays the host keeps, most preferred first; undefined without one. */
  relays?: () => readonly string[] | undefined;
  clock: Clock;
  /** Machines that lend themselves to this host, when it serves them. */
  machines?: MachineRegistry;
  /** Terminals on this host (and its machines); `terminals.*` answer `unsupported` without. */
  terminals?: TerminalManager;
  /** Attachments; `blobs.*` answer `unsupported` without. */
  blobs?: BlobHandlerDeps;
  /** Commands, modes, models and budgets; `sessions.controls` and `sessions.set*` answer `unsupported` without. */
  steering?: SessionSteering;
  /** Slash commands typed in a message; messages go straight to the session without. */
  commands?: TypedCommands;
  /** Sessions in worktrees of their own; `worktree: true` is refused without. */
  worktrees?: Worktrees;
  /** Whether the host keeps the computer awake now, and why not. */
  keepAwake?: () => KeepAwakeStatus;
}

/**
 * What a paired device may do, behind the dispatch that has already checked the method, the
 * scope and the params. Each is a view of the same session manager and approval broker the
 * local CLI uses.
 */
export function deviceHandlers(deps: DeviceHandlerDeps): DeviceHandlers {
  const byDevice = (caller: Caller) => ({ kind: 'device' as const, id: caller.device.id, label: caller.device.label });
  /** Refuses a device without the `terminal` scope a message or interrupt to a `terminal` session. */
  const terminalGuard = (sessionId: string, caller: Caller): Result<never> | undefined =>
    deps.sessions.get(sessionId)?.kind === 'terminal' && !caller.device.scopes.includes('terminal')
      ? fail('forbidden', 'typing into a terminal needs the terminal scope')
      : undefined;
  return {
    ...historyHandlers({ sessions: deps.sessions, log: deps.log }),
    'host.info': (_params, caller) =>
      ok({
        hostId: deps.hostId,
        name: deps.hostName,
        version: deps.version,
        protocolVersion: PROTOCOL_VERSION,
        deviceId: caller.device.id,
        scopes: caller.device.scopes,
        features: [...deps.features()],
        models: [...deps.models],
        defaultModel: deps.models[0]!,
        roots: [...deps.roots],
        agents: deps.agents?.list() ?? [],
        ...relayList(deps.relays?.()),
        ...(deps.keepAwake ? { keepAwake: deps.keepAwake() } : {}),
      }),
    'fs.listDirs': (params) => listDirs(deps.roots, params.path, deps.privates),
    'channel.batch': (_params, caller) =>
      caller.connection
        ? ok({ maxMessages: caller.connection.acceptBatches() })
        : fail('unsupported', 'batches are for a live connection'),

    'sessions.list': (params) => ok({ sessions: deps.sessions.list(params.includeArchived ?? false) }),
    'agents.sessions': async ({ agent, cwd, place }) => {
      if (!deps.agentSessions) return fail('unsupported', 'this host does not run ACP agents');
      const where = await sessionFolder(deps, place, cwd);
      return where.ok ? deps.agentSessions.list({ agent, ...where.value }) : where;
    },
    'sessions.continue': async ({ agent, id, cwd, place, title }) => {
      if (!deps.agentSessions) return fail('unsupported', 'this host does not run ACP agents');
      const where = await sessionFolder(deps, place, cwd);
      if (!where.ok) return where;
      const continued = await deps.agentSessions.continue({
        agent,
        id,
        ...where.value,
        ...(title !== undefined ? { title } : {}),
      });
      return continued.ok ? ok({ session: continued.value }) : continued;
    },
    'sessions.create': async ({ cwd, text, model, place, agent, mode, agentModel, budget, worktree }) => {
      const start = async (input: Parameters<SessionManager['create']>[0]) => {
        // A worktree lies beside its repository: a local one must be under the shared folders too.
        if (
          worktree &&
          (input.place ?? 'local') === 'local' &&
          !(await insideRoots(deps.roots, input.cwd, deps.privates))
        ) {
          return fail('forbidden', `the worktree ${input.cwd} is not under a folder this host shares with devices`);
        }
        return deps.steering ? deps.steering.create(input, { mode, agentModel, budget }) : deps.sessions.create(input);
      };
      const create = (input: Parameters<SessionManager['create']>[0]) =>
        deps.worktrees ? deps.worktrees.create(worktree, input, start) : start(input);
      if (agent !== undefined && model !== undefined) {
        return fail('invalid-params', 'a session is run by a model or by an agent, not both');
      }
      if (model !== undefined && !deps.models.includes(model)) {
        return fail(
          'invalid-params',
          `model ${model} is not offered by this host; choose one of ${deps.models.join(', ')}`,
        );
      }
      const placed = placeFolder(deps.machines, place, cwd);
      if (!placed.ok) return placed;
      if (placed.value) {
        // A folder on a machine: its roots, not this host's, say where a session may go.
        const created = await create({
          ...placed.value,
          text,
          ...(model !== undefined ? { model } : {}),
          ...(agent !== undefined ? { kind: 'acp' as const, model: agent } : {}),
        });
        return created.ok ? ok({ session: created.value }) : created;
      }
      const folder = await insideRoots(deps.roots, cwd, deps.privates);
      if (!folder) return fail('forbidden', `${cwd} is not under a folder this host shares with devices`);
      const created = await create({
        cwd: folder,
        text,
        ...(model !== undefined ? { model } : {}),
        ...(agent !== undefined ? { kind: 'acp' as const, model: agent } : {}),
      });
      return created.ok ? ok({ session: created.value }) : created;
    },
    'sessions.watch': ({ id, after, tail }, caller) => {
      if (!caller.connection) return fail('unsupported', 'watching needs a connection, not a one-shot call');
      const session = deps.sessions.get(id);
      if (!session) return fail('not-found', `no session ${id}`);
      const watched = caller.connection.watch(id, after, tail);
      return watched.ok ? ok({ session }) : watched;
    },
    'sessions.unwatch': ({ id }, caller) => {
      caller.connection?.unwatch(id);
      return ok({});
    },
    // To a wrapped program, a message is keys typed into its terminal: that takes the terminal scope.
    'sessions.send': ({ id, text, clientMessageId, attachments }, caller) =>
      terminalGuard(id, caller) ?? (deps.commands ?? deps.sessions).send(id, text, clientMessageId, attachments),
    ...(deps.blobs
      ? {
          ...uploadHandlers<Caller>(deps.blobs, (caller) => `device:${caller.device.id}`),
          'blobs.read': (p: MethodParams<'blobs.read'>) => readBlob(deps.blobs!.store, p),
        }
      : {}),
    'sessions.interrupt': ({ id }, caller) => terminalGuard(id, caller) ?? deps.sessions.interrupt(id),
    'sessions.archive': (p) => archiveSession(deps.sessions, deps.worktrees, p),

    'approvals.list': ({ sessionId }) => ok({ approvals: deps.approvals.pending(sessionId) }),
    'approvals.answer': (params, caller) => answerApproval(deps.approvals, params, byDevice(caller), noteKept(caller)),

    'approvals.get': ({ id }) => {
      const approval = deps.approvals.get(id);
      if (!approval) return fail('not-found', `no approval ${id}`);
      const title = deps.sessions.get(approval.sessionId)?.title;
      return ok({ approval, ...(title !== undefined ? { sessionTitle: title.slice(0, 1000) } : {}) });
    },

    ...(deps.machines ? machineDeviceHandlers(deps.machines) : {}),
    ...(deps.terminals ? terminalHandlers(deps.terminals) : {}),

    ...(deps.steering ? { ...steeringHandlers(deps.steering), ...agentControlsHandler(deps.steering) } : {}),

    'devices.list': () => ok({ devices: deps.devices.list().map(publicDeviceInfo) }),
    'devices.revoke': ({ id }, caller) => {
      if (id !== caller.device.id && !caller.device.scopes.includes('admin')) {
        return fail('forbidden', 'revoking another device needs the admin scope');
      }
      const revoked = revokeDevice(deps.devices, id, deps.clock.now());
      if (!revoked.ok) return revoked;
      // Its connections (this one too, when it revokes itself) close after the answer goes out.
      deps.clock.setTimeout(() => deps.disconnectDevice(id), 0);
      return ok({});
    },
  };
}

/** Where a device's session may go: a folder under a machine's roots, or under this host's. */
async function sessionFolder(
  deps: Pick<DeviceHandlerDeps, 'machines' | 'roots' | 'privates'>,
  place: string | undefined,
  cwd: string,
): Promise<Result<{ place: string; cwd: string }>> {
  const placed = placeFolder(deps.machines, place, cwd);
  if (!placed.ok) return placed;
  if (placed.value) return ok(placed.value);
  const folder = await insideRoots(deps.roots, cwd, deps.privates);
  return folder
    ? ok({ place: 'local', cwd: folder })
    : fail('forbidden', `${cwd} is not under a folder this host shares with devices`);
}

/**
 * Why a note with this device's answer does not reach the agent, or undefined when it does. A note
 * is words of the person's to the agent, so a message: only a device with `chat`, on a connection
 * of its own, gives one. A `watch,approve` device (a relay page's pairing: that page may not be the
 * app) and a one-shot call (a notification's action, answered without the whole request in view)
 * answer; the agent gets the plain answer.
 */
function noteKept(caller: Caller): string | undefined {
  if (!caller.device.scopes.includes('chat')) {
    return `${caller.device.label} has no chat scope, so it cannot send the agent messages`;
  }
  if (!caller.connection) return `it came from a notification's action, which sends no messages`;
  return undefined;
}

/** `host.info`'s relays: said on every connect, so a device learns of a relay added since it paired. */
function relayList(relays: readonly string[] | undefined): { relays?: string[] } {
  return relays && relays.length > 0 ? { relays: [...relays] } : {};
}
