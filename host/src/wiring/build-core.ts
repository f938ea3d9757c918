import type { HostEvent } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import type { LocalContext } from '@tether/machine';
import { NodePtyPort, PtyTerminals } from '@tether/machine';
import { UploadManager } from '../blobs/upload-manager.js';
import { newId } from '../ids.js';
import { HostMachines } from '../machines/host-machines.js';
import { McpManager } from '../mcp/mcp-manager.js';
import type { McpNotice } from '../mcp/types.js';
import { PluginRuntime } from '../plugins/plugin-runtime.js';
import { AcpBackend, DEFAULT_ACP_LIMITS } from '../sessions/acp/acp-backend.js';
import { AcpSessionStore } from '../sessions/acp/acp-session-store.js';
import { AgentCatalog } from '../sessions/acp/agent-catalog.js';
import { AgentSessions } from '../sessions/acp/agent-sessions.js';
import { ApprovalBroker } from '../sessions/approval-broker.js';
import { BuiltinBackend } from '../sessions/builtin/builtin-backend.js';
import { hostLocalContext } from '../sessions/host-context.js';
import { SessionJournal } from '../sessions/session-journal.js';
import { SessionManager } from '../sessions/session-manager.js';
import { SessionSteering } from '../sessions/session-steering.js';
import { FolderTrust } from '../sessions/trust/folder-trust.js';
import { TypedCommands } from '../sessions/typed-commands.js';
import { SessionGit } from '../git/session-git.js';
import { Worktrees } from '../git/worktrees.js';
import { WrappedPrograms } from '../sessions/wrapped/wrapped-programs.js';
import { ApprovalStore } from '../store/approval-store.js';
import { BlobStore } from '../store/blob-store.js';
import type { Db } from '../store/database.js';
import { openDatabase } from '../store/database.js';
import { DeviceStore } from '../store/device-store.js';
import { EventLog } from '../store/event-log.js';
import { SessionStore } from '../store/session-store.js';
import { TrustStore } from '../store/trust-store.js';
import { TerminalManager } from '../terminals/terminal-manager.js';
import { BUILTIN_TOOLS } from '../tools/builtin-tools.js';
import { mcpAgentTool } from '../tools/mcp-tool.js';
import { VERSION } from '../version.js';
import type { Teardown } from './closers.js';
import type { HostChecks } from './host-checks.js';
import type { HostOptions } from './host-options.js';
import { offeredModels, providerFactory } from './model-offer.js';
import { Signal } from './signal.js';

/** The store, execution and session parts. */
export interface HostCore {
  readonly db: Db;
  readonly log: EventLog;
  readonly sessionStore: SessionStore;
  readonly devices: DeviceStore;
  readonly approvals: ApprovalBroker;
  readonly blobs: BlobStore;
  readonly trust: FolderTrust;
  readonly mcp: McpManager;
  readonly plugins: PluginRuntime;
  /** What machines report, for the gateway to publish once it exists. */
  readonly hostEvents: Signal<HostEvent>;
  readonly machines: HostMachines;
  readonly local: LocalContext;
  readonly terminals: TerminalManager;
  /** Models a device may pick. */
  readonly models: string[];
  readonly catalog: AgentCatalog;
  readonly acp: AcpBackend;
  readonly agentSessions: AgentSessions;
  readonly wrapped: WrappedPrograms;
  readonly sessions: SessionManager;
  readonly steering: SessionSteering;
  readonly commands: TypedCommands;
  /** Git in a session's folder, and sessions in worktrees of their own. */
  readonly git: SessionGit;
  readonly worktrees: Worktrees;
  readonly uploads: UploadManager;
  /** Where the control socket is closed, when the host starts one: after the runs are recorded. */
  readonly controlScope: Teardown;
  /** Where the listener and the relay link are closed: before the runs are interrupted. */
  readonly transportScope: Teardown;
}

/**
 * Builds the store, the MCP servers and plugins, the places runs execute (this computer, machines,
 * terminals), the three session back-ends and the core that runs them, and recovers the sessions
 * a previous host left. Each part's closer goes to `scope` as the part is made.
 */
export async function buildCore(options: HostOptions, checks: HostChecks, scope: Teardown): Promise<HostCore> {
  const { clock, paths, identity, roots, privates, defaultModel } = checks;

  // The store and what is kept in it.
  const db = openDatabase(paths.database);
  // Registered first, so closed last: every part below may still record into it as it closes.
  scope.defer('db', () => {
    db.close();
  });
  const log = new EventLog(db, clock);
  const sessionStore = new SessionStore(db);
  if (options.maxModelCalls !== undefined) sessionStore.activity.setHostLimit(options.maxModelCalls);
  const journal = new SessionJournal({ sessions: sessionStore, log, clock });
  const devices = new DeviceStore(db);
  const approvals = new ApprovalBroker(new ApprovalStore(db), log, clock, () => newId('a'));
  const blobs = new BlobStore(db, paths.blobs, options.blobCap);
  const trust = new FolderTrust({ store: new TrustStore(db), clock, env: options.env });

  // MCP servers: their failures are said in every session (at once in running ones, below).
  const mcpFailures: string[] = [];
  const mcpProblems = new Signal<McpNotice>();
  const mcp = await McpManager.start(checks.mcpConfig, {
    onNotice: (notice) => {
      options.onNotice?.(notice);
      if (notice.level === 'info') return;
      mcpFailures.push(notice.text);
      mcpProblems.emit(notice);
    },
    clientVersion: VERSION,
  });
  scope.defer('mcp', () => mcp.close());

  const plugins = new PluginRuntime({
    statePath: paths.plugins,
    clientVersion: VERSION,
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
  });
  scope.defer('plugins', () => plugins.close());
  // The control socket stays open until the runs below are recorded as interrupted.
  const controlScope = scope.nest('control');

  // Execution: this computer, machines, terminals.
  const hostEvents = new Signal<HostEvent>();
  const machines = new HostMachines({
    db,
    identity,
    clock,
    ...(options.machineWaitMs !== undefined ? { waitMs: options.machineWaitMs } : {}),
    publish: (event) => hostEvents.emit(event),
    sessionsOn: (machine) => sessionStore.list(true).filter((s) => s.place === machine).length,
  });
  const local = hostLocalContext(options.env, privates);
  const localTerminals = new PtyTerminals({ pty: new NodePtyPort(), roots, clock, env: options.env });
  const terminals = new TerminalManager({
    clock,
    newId,
    place: (machine) => (machine === 'local' ? ok(localTerminals) : machines.registry.terminals(machine)),
    ...(options.terminalIdleMs !== undefined ? { idleMs: options.terminalIdleMs } : {}),
  });

  // Sessions: the three back-ends, then the core that runs them.
  const providers = providerFactory(options, clock, defaultModel, checks.modelConfig);
  const models = offeredModels(checks.defaultSpec, options.env, checks.modelConfig);
  const contextOf = (place: string) => (place === 'local' ? local : machines.registry.context(place));
  const catalog = new AgentCatalog(checks.agents.agents, options.env);
  const acpSessions = new AcpSessionStore(db);
  const acp = new AcpBackend({
    catalog,
    log,
    sessions: acpSessions,
    clock,
    env: options.env,
    trust,
    ...(options.acpLimits ? { limits: options.acpLimits } : {}),
    steering: sessionStore.steering,
    prices: checks.prices,
  });
  scope.defer('acp', () => acp.close());
  const wrapped = new WrappedPrograms({
    terminals,
    local: localTerminals,
    journal,
    prompts: checks.agents.prompts,
    clock,
    newId,
    ...(options.promptQuietMs !== undefined ? { quietMs: options.promptQuietMs } : {}),
  });
  const backends = {
    agent: new BuiltinBackend({
      log,
      providers,
      tools: () => [...BUILTIN_TOOLS, ...mcp.tools().map(mcpAgentTool)],
      hostInstructions: paths.instructions,
      trust,
      plugins: async (input) => {
        const setup = await plugins.forRun(input);
        return { ...setup, tools: setup.tools.map(mcpAgentTool) };
      },
      steering: sessionStore.steering,
      prices: checks.prices,
      controls: {
        models: () => models,
        contexts: contextOf,
        unpricedCalls: (id) => sessionStore.activity.get(id).unpricedCalls ?? 0,
      },
    }),
    acp,
    terminal: wrapped,
  };
  const sessions = new SessionManager({
    sessions: sessionStore,
    log,
    journal,
    approvals,
    backends,
    contexts: (place, run) => (place === 'local' ? local : machines.registry.context(place, run)),
    clock,
    newId,
    defaultModel,
    startNotices: () => mcpFailures,
    attachments: (sessionId, blobId) => blobs.forSession(sessionId, blobId),
    attachmentBytes: (blobId) => blobs.readAll(blobId),
  });
  // Runs are interrupted and recorded as such while the store is open.
  scope.defer('sessions', () => sessions.shutdown());
  // Phones and machines stop reaching the host before the runs are interrupted.
  const transportScope = scope.nest('transports');
  // Built before the sessions but closed before them, so registered here: calls waiting for an
  // offline machine fail at once, so no run holds the shutdown, and each machine is told why its
  // link ends before the transports carrying it close. No machine links before the host listens.
  scope.defer('machines', () => machines.close());
  const steering = new SessionSteering({
    manager: sessions,
    sessions: sessionStore,
    journal,
    backends,
    defaultModel,
    agentTitle: (agent) => catalog.get(agent)?.title,
  });
  const commands = new TypedCommands({ manager: sessions, steering, sessions: sessionStore, journal, clock });
  const gitDeps = {
    session: (id: string) => sessions.get(id),
    contexts: contextOf,
    note: (id: string, level: 'info' | 'warning', text: string) => log.append(id, { type: 'notice', level, text }),
  };
  const git = new SessionGit(gitDeps);
  const worktrees = new Worktrees(gitDeps);
  const uploads = new UploadManager({
    store: blobs,
    sessionExists: (id) => sessionStore.get(id) !== undefined,
    clock,
    newId,
  });
  scope.defer('uploads', () => uploads.close());
  const unsubscribeMcp = mcpProblems.on((notice) => {
    // Sessions running now hear of it at once; others when their next run starts.
    for (const summary of sessions.list()) {
      if (sessions.isRunning(summary.id))
        log.append(summary.id, { type: 'notice', level: notice.level, text: notice.text });
    }
  });
  scope.defer('mcp-notices', unsubscribeMcp);
  sessions.recover();
  const agentSessions = new AgentSessions({
    catalog,
    sessions,
    store: acpSessions,
    contexts: contextOf,
    env: options.env,
    clock,
    timeoutMs: options.acpLimits?.startTimeoutMs ?? DEFAULT_ACP_LIMITS.startTimeoutMs,
  });

  return {
    db,
    log,
    sessionStore,
    devices,
    approvals,
    blobs,
    trust,
    mcp,
    plugins,
    hostEvents,
    machines,
    local,
    terminals,
    models,
    catalog,
    acp,
    agentSessions,
    wrapped,
    sessions,
    steering,
    commands,
    git,
    worktrees,
    uploads,
    controlScope,
    transportScope,
  };
}
