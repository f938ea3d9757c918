import type { BlobHandlerDeps } from './blob-handlers.js';
import { uploadHandlers } from './blob-handlers.js';
import type {
  Clock,
  ControlMethods,
  ControlParams,
  ControlResult,
  RelayLinkStatus,
  Result,
  Scope,
} from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { ApprovalBroker } from '../sessions/approval-broker.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { KeepAwakeStatus } from '../power/keep-awake.js';
import type { DeviceStore } from '../store/device-store.js';
import type { EventLog } from '../store/event-log.js';
import type { TerminalManager } from '../terminals/terminal-manager.js';
import { replayThenFollow } from '../store/replay.js';
import { terminalStreamHandlers } from './terminal-handlers.js';
import type { AgentCatalog } from '../sessions/acp/agent-catalog.js';
import type { AgentSessions } from '../sessions/acp/agent-sessions.js';
import type { ControlCaller } from './caller.js';
import type { Handlers } from './dispatch.js';
import { historyHandlers } from './history-handlers.js';
import type { MachineDeps } from '../machines/host-machines.js';
import { machineControlHandlers, placeFolder } from './machine-handlers.js';
import { answerApproval, publicDeviceInfo, revokeDevice } from './shared-handlers.js';
import type { TrustHandlerDeps } from './trust-handlers.js';
import { trustHandlers } from './trust-handlers.js';
import type { SessionSteering } from '../sessions/session-steering.js';
import type { TypedCommands } from '../sessions/typed-commands.js';
import { steeringHandlers } from './steering-handlers.js';
import type { SessionGit } from '../git/session-git.js';
import { gitHandlers } from './git-handlers.js';
import type { Worktrees } from '../git/worktrees.js';
import { archiveSession } from '../git/archive-session.js';

/** What `tether status` says about this host itself. */
export interface HostFacts {
  hostId: string;
  name: string;
  version: string;
  dataDir: string;
  startedAt: number;
  defaultModel: string;
}

/** Whether and where phones reach this host, in words for the person. */
export interface Reach {
  listening: boolean;
  url: string | null;
  mode: 'http' | 'https' | null;
  message: string;
  /** The host's relay link, with `--relay`. */
  relay?: RelayLinkStatus;
}

/**
 * What the control handlers use of the device gateway. Declared here, not taken from the gateway:
 * the gateway dispatches to handlers, so handlers never import it.
 */
export interface GatewayControl {
  pairing: {
    /** Opens a new pairing window (the link itself comes from `ControlDeps.pairLink`). */
    mint(): unknown;
    requests(): ControlResult<'pair.requests'>['requests'];
    allow(id: string, scopes?: readonly Scope[]): Result<ControlResult<'pair.allow'>['device']>;
    deny(id: string): Result<Record<string, never>>;
  };
  hub: { connectedDevices(): ReadonlySet<string>; disconnectDevice(deviceId: string): number };
  stats: { snapshot(): Record<string, number> };
}

/** What the control handlers need of the host, and nothing more. */
export interface ControlDeps {
  facts: HostFacts;
  sessions: SessionManager;
  approvals: ApprovalBroker;
  log: EventLog;
  devices: DeviceStore;
  gateway: GatewayControl;
  reach: () => Reach;
  /** A fresh pairing link for where phones can reach this host, or why there is none. */
  pairLink: () => Result<ControlResult<'pair.create'>>;
  /** The configured ACP agents. */
  agents: Pick<AgentCatalog, 'list'>;
  /** Agents' own sessions, started at the computer, and continuing them. */
  agentSessions: Pick<AgentSessions, 'list' | 'continue'>;
  /** Push subscriptions and outcomes by reason, when the host sends push. */
  push?: () => { subscriptions: number; counters: Record<string, number> };
  /** Whether the host keeps the computer awake now, and why not. */
  keepAwake?: () => KeepAwakeStatus;
  clock: Pick<Clock, 'now'>;
  /** Machines and their tokens. */
  machines: MachineDeps;
  terminals: TerminalManager;
  /** `tether run`: a program in a terminal, followed as a session. */
  run: (params: ControlParams<'terminals.run'>) => Promise<Result<ControlResult<'terminals.run'>>>;
  /** Attachments: uploads (`tether sessions send --attach`) and the store they end in. */
  blobs?: BlobHandlerDeps;
  /** Share links (`tether share`): their handlers, made where the links are (share/share-handlers.ts). */
  shares: ShareControl;
  /** Folder trust (`tether trust`). */
  trust?: TrustHandlerDeps;
  /** Commands, modes, models and budgets (`tether sessions commands|mode|model|budget`). */
  steering: SessionSteering;
  git: SessionGit;
  worktrees: Worktrees;
  /** Slash commands typed in a message (`tether sessions send ID /compact`). */
  commands: TypedCommands;
}

/** The control socket's `share.*`, as the share links' own handlers give them. */
export type ShareControl = Pick<
  Handlers<ControlMethods, ControlCaller>,
  'share.create' | 'share.list' | 'share.revoke'
>;

const noTrust = () => fail('unsupported', 'this host keeps no folder trust');
const noTrustHandlers = { 'trust.show': noTrust, 'trust.set': noTrust, 'trust.list': noTrust, 'trust.revoke': noTrust };
const noAttachments = () => fail('unsupported', 'this host keeps no attachments');
const noUploads = {
  'blobs.begin': noAttachments,
  'blobs.chunk': noAttachments,
  'blobs.finish': noAttachments,
  'blobs.cancel': noAttachments,
};

/** Every control-socket method: the person at the computer, through `tether …`. */
export function controlHandlers(deps: ControlDeps): Handlers<ControlMethods, ControlCaller> {
  const { sessions, approvals, log, gateway } = deps;
  const local = { kind: 'local' as const, label: 'this computer' };
  return {
    ...deps.shares,
    'host.status': () => {
      const all = sessions.list(true);
      return ok({
        ...deps.facts,
        pid: process.pid,
        sessions: all.length,
        runningSessions: all.filter((s) => s.status === 'running' || s.status === 'waiting').length,
        pendingApprovals: approvals.pending().length,
        remote: {
          ...deps.reach(),
          connectedDevices: gateway.hub.connectedDevices().size,
          refused: gateway.stats.snapshot(),
        },
        failures: Object.fromEntries([...log.listenerFailures].map(([name, n]) => [`event listener ${name}`, n])),
        ...(deps.push ? { push: deps.push() } : {}),
        ...(deps.keepAwake ? { keepAwake: deps.keepAwake() } : {}),
      });
    },
    'sessions.list': (p) => ok({ sessions: sessions.list(p.includeArchived ?? false) }),
    'sessions.create': async (p) => {
      if (p.agent !== undefined && p.model !== undefined) {
        return fail('invalid-params', 'a session is run by a model or by an agent, not both');
      }
      const placed = placeFolder(deps.machines.registry, p.machine, p.cwd);
      if (!placed.ok) return placed;
      const created = await deps.worktrees.create(
        p.worktree,
        {
          cwd: placed.value?.cwd ?? p.cwd,
          text: p.text,
          ...(p.model !== undefined ? { model: p.model } : {}),
          ...(placed.value ? { place: placed.value.place } : {}),
          ...(p.agent !== undefined ? { kind: 'acp' as const, model: p.agent } : {}),
        },
        (input) => deps.steering.create(input, { mode: p.mode, agentModel: p.agentModel, budget: p.budget }),
      );
      return created.ok ? ok({ session: created.value }) : created;
    },
    'sessions.get': (p) => {
      const session = sessions.get(p.id);
      return session ? ok({ session }) : fail('not-found', `no session ${p.id}`);
    },
    'sessions.events': (p) => {
      if (!sessions.get(p.id)) return fail('not-found', `no session ${p.id}`);
      return ok({ events: log.read(p.id, p.after, p.limit ?? 1000), lastSeq: log.lastSeq(p.id) });
    },
    'sessions.follow': async (p, connection) => {
      const session = sessions.get(p.id);
      if (!session) return fail('not-found', `no session ${p.id}`);
      await replayThenFollow(
        log,
        p.id,
        p.after,
        (event) => connection.sendEvent(event, true),
        () => connection.following.add(p.id),
        () => connection.drained(),
        () => !connection.isClosed,
      );
      return ok({ session });
    },
    'sessions.send': (p) => deps.commands.send(p.id, p.text, undefined, p.attachments),
    ...(deps.blobs ? uploadHandlers<ControlCaller>(deps.blobs, () => 'control') : noUploads),
    'sessions.interrupt': (p) => sessions.interrupt(p.id),
    'sessions.archive': (p) => archiveSession(sessions, deps.worktrees, p),
    'sessions.autoApprove': (p) => sessions.setAutoApprove(p.id, p.enabled),
    'sessions.configure': historyHandlers({ sessions, log })['sessions.configure'],
    'agents.list': () => ok({ agents: deps.agents.list() }),
    'agents.sessions': (p) => {
      const placed = placeFolder(deps.machines.registry, p.machine, p.cwd);
      if (!placed.ok) return placed;
      return deps.agentSessions.list({
        agent: p.agent,
        place: placed.value?.place ?? 'local',
        cwd: placed.value?.cwd ?? p.cwd,
      });
    },
    'sessions.continue': async (p) => {
      const placed = placeFolder(deps.machines.registry, p.machine, p.cwd);
      if (!placed.ok) return placed;
      const continued = await deps.agentSessions.continue({
        agent: p.agent,
        id: p.id,
        place: placed.value?.place ?? 'local',
        cwd: placed.value?.cwd ?? p.cwd,
        ...(p.title !== undefined ? { title: p.title } : {}),
      });
      return continued.ok ? ok({ session: continued.value }) : continued;
    },
    'approvals.list': (p) => ok({ approvals: approvals.pending(p.sessionId) }),
    'approvals.answer': (p) => answerApproval(approvals, p, local),
    'pair.create': () => {
      gateway.pairing.mint();
      return deps.pairLink();
    },
    'pair.requests': () => ok({ requests: gateway.pairing.requests() }),
    'pair.allow': (p) => {
      const allowed = gateway.pairing.allow(p.id, p.scopes);
      return allowed.ok ? ok({ device: allowed.value }) : allowed;
    },
    'pair.deny': (p) => gateway.pairing.deny(p.id),
    'devices.list': () => ok({ devices: deps.devices.list().map(publicDeviceInfo) }),
    'devices.revoke': (p) => {
      const revoked = revokeDevice(deps.devices, p.id, deps.clock.now());
      return revoked.ok ? ok({ closedConnections: gateway.hub.disconnectDevice(p.id) }) : revoked;
    },
    ...machineControlHandlers(deps.machines),
    'terminals.list': () => ok({ terminals: deps.terminals.list() }),
    'terminals.run': (p) => deps.run(p),
    ...terminalStreamHandlers<ControlCaller>(deps.terminals, (connection) => connection),
    ...(deps.trust ? trustHandlers(deps.trust) : noTrustHandlers),
    ...steeringHandlers(deps.steering),
    ...gitHandlers(deps.git),
  };
}
