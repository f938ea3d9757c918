import type { Clock, HostEvent, HostIdentity, Result } from '@tether/shared-protocol';
import { ok, secureRandom, systemClock } from '@tether/shared-protocol';
import { chooseSecretbox } from '../crypto/native-secretbox.js';
import { chooseX25519 } from '../crypto/node-x25519.js';
import { NodePtyPort, PtyTerminals } from '@tether/machine';
import { homedir, hostname } from 'node:os';
import type { DataPaths } from '../config/data-dir.js';
import { dataPaths, prepareDataDir } from '../config/data-dir.js';
import { loadOrCreateIdentity } from '../config/host-identity.js';
import { DeviceGateway } from '../gateway/device-gateway.js';
import { OneShotHorizon } from '../gateway/one-shot-horizon.js';
import { newId } from '../ids.js';
import { HostMachines } from '../machines/host-machines.js';
import { loadMcpConfig } from '../mcp/mcp-config.js';
import { McpManager } from '../mcp/mcp-manager.js';
import type { McpNotice } from '../mcp/types.js';
import { PluginRuntime } from '../plugins/plugin-runtime.js';
import type { ModelSpec } from '../models/model-spec.js';
import {
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_OPENAI_MODEL,
  defaultModelSpec,
  formatModelSpec,
  isSet,
  parseModelSpec,
} from '../models/model-spec.js';
import { createProvider } from '../models/registry.js';
import { PushService } from '../push/push-service.js';
import { HostRelay, relayTickets, relayUrls } from '../relay/host-relay.js';
import { relayHandlers } from '../relay/relay-handlers.js';
import type { RelayTickets } from '../relay/relay-tickets.js';
import type { Caller } from '../rpc/caller.js';
import { controlHandlers } from '../rpc/control-handlers.js';
import { deviceHandlers } from '../rpc/device-handlers.js';
import { AcpBackend, DEFAULT_ACP_LIMITS } from '../sessions/acp/acp-backend.js';
import { AcpSessionStore } from '../sessions/acp/acp-session-store.js';
import { AgentCatalog } from '../sessions/acp/agent-catalog.js';
import { agentsConfigPath, loadAgents } from '../sessions/acp/agent-config.js';
import { AgentSessions } from '../sessions/acp/agent-sessions.js';
import { ApprovalBroker } from '../sessions/approval-broker.js';
import { contextWindowFor } from '../models/context-window.js';
import type { ModelConfig } from '../models/model-config.js';
import { configuredWindow, loadModelConfig } from '../models/model-config.js';
import { loadPriceBook } from '../models/price-config.js';
import { SessionSteering } from '../sessions/session-steering.js';
import { SessionGit } from '../git/session-git.js';
import { Worktrees } from '../git/worktrees.js';
import { gitHandlers } from '../rpc/git-handlers.js';
import { TypedCommands } from '../sessions/typed-commands.js';
import type { ProviderFactory } from '../sessions/builtin/builtin-backend.js';
import { BuiltinBackend } from '../sessions/builtin/builtin-backend.js';
import { hostLocalContext, ownPrivates } from '../sessions/host-context.js';
import { SessionJournal } from '../sessions/session-journal.js';
import { SessionManager } from '../sessions/session-manager.js';
import { WrappedPrograms } from '../sessions/wrapped/wrapped-programs.js';
import { ApprovalStore } from '../store/approval-store.js';
import { BlobStore } from '../store/blob-store.js';
import { UploadManager } from '../blobs/upload-manager.js';
import type { Db } from '../store/database.js';
import { openDatabase } from '../store/database.js';
import { DeviceStore } from '../store/device-store.js';
import { EventLog } from '../store/event-log.js';
import { SessionStore } from '../store/session-store.js';
import { ShareStore } from '../store/share-store.js';
import type { ShareHandlerDeps } from '../share/share-handlers.js';
import { shareHandlers } from '../share/share-handlers.js';
import { ShareLinks } from '../share/share-links.js';
import { TrustStore } from '../store/trust-store.js';
import { FolderTrust } from '../sessions/trust/folder-trust.js';
import { TerminalManager } from '../terminals/terminal-manager.js';
import { BUILTIN_TOOLS } from '../tools/builtin-tools.js';
import { mcpAgentTool } from '../tools/mcp-tool.js';
import { VERSION } from '../version.js';
import { KeepAwake } from '../power/keep-awake.js';
import { inhibitorFor, spawnInhibitor } from '../power/sleep-inhibitor.js';
import type { HostOptions } from './host-options.js';
import { HostReach } from './host-reach.js';
import { Signal } from './signal.js';

/** Every part of a running host, built once each, in the order they depend on each other. */
export interface HostParts {
  readonly name: string;
  readonly startedAt: number;
  readonly clock: Clock;
  readonly identity: HostIdentity;
  readonly paths: DataPaths;
  readonly defaultModel: string;
  readonly db: Db;
  readonly log: EventLog;
  readonly sessionStore: SessionStore;
  readonly devices: DeviceStore;
  readonly approvals: ApprovalBroker;
  readonly mcp: McpManager;
  /** The MCP servers of Agent Plugins, started per set a run needs. */
  readonly plugins: PluginRuntime;
  readonly machines: HostMachines;
  readonly terminals: TerminalManager;
  /** Programs run with `tether run`, followed as `terminal` sessions. */
  readonly wrapped: WrappedPrograms;
  readonly sessions: SessionManager;
  /** Whether a folder's own agent configuration may load (`tether trust`, trust approvals). */
  readonly trust: FolderTrust;
  /** Modes, models, budgets, and the own loop's slash commands. */
  readonly steering: SessionSteering;
  readonly commands: TypedCommands;
  /** Attachments kept, and those on their way in. */
  readonly blobs: BlobStore;
  readonly uploads: UploadManager;
  readonly agents: { backend: AcpBackend; catalog: AgentCatalog; sessions: AgentSessions };
  readonly push: PushService;
  readonly gateway: DeviceGateway;
  /** Read-only links to one session each (`tether share`); their viewers connect to the gateway. */
  readonly shares: ShareLinks;
  /** The link to a relay, with `--relay` (built here, started with the host). */
  readonly relay: HostRelay | undefined;
  /** Whether and where phones reach the host; the listener joins it when it starts. */
  readonly reach: HostReach;
  /** The control socket's handler table. */
  readonly controlHandlers: ReturnType<typeof controlHandlers>;
  /** The sleep inhibitor held while a run is active or a terminal attached (started with the host). */
  readonly keepAwake: KeepAwake;
  /** Stops the subscriptions the wiring made between parts. */
  readonly unsubscribe: () => void;
}

/**
 * Builds a host's parts in dependency order: what is checked first (data dir, identity, model,
 * config files, relay URL), then the store, the MCP servers, machines and terminals, the session
 * back-ends and their core, push, the device gateway with its handler tables, the relay link and
 * the control handlers. No part is handed another before it exists: where a lower part reports
 * upwards (a machine's status, an MCP failure) it is built with a `Signal` the upper part
 * subscribes to once made. Starts nothing that listens: `Host.start` does that.
 */
export async function buildHost(options: HostOptions): Promise<Result<HostParts>> {
  const clock = options.clock ?? systemClock;
  const name = hostname();
  const startedAt = clock.now();
  const paths = dataPaths(options.dataDir);
  const dir = prepareDataDir(paths.dir);
  if (!dir.ok) return dir;
  const roots = options.remote?.roots ?? options.roots ?? [homedir()];
  const checkedPrivates = ownPrivates(options, roots);
  if (!checkedPrivates.ok) return checkedPrivates;
  const privates = checkedPrivates.value;
  const loaded = loadOrCreateIdentity(paths.identity);
  if (!loaded.ok) return loaded;
  const identity = loaded.value.identity;

  const defaultModel = options.model ?? formatModelSpec(defaultModelSpec(options.env));
  const parsedDefault = parseModelSpec(defaultModel);
  if (!parsedDefault.ok) return parsedDefault;
  const checked = createProvider(parsedDefault.value, options.env);
  if (!checked.ok) return checked;

  const mcpConfig = loadMcpConfig(options.mcpConfig ?? paths.mcpConfig, {
    required: options.mcpConfig !== undefined,
  });
  if (!mcpConfig.ok) return mcpConfig;
  const modelConfig = loadModelConfig(paths.models);
  if (!modelConfig.ok) return modelConfig;
  const prices = loadPriceBook(paths.prices);
  if (!prices.ok) return prices;
  const agentSpecs = loadAgents(options.agentsConfig ?? agentsConfigPath(paths.dir), {
    required: options.agentsConfig !== undefined,
  });
  if (!agentSpecs.ok) return agentSpecs;
  let tickets: { urls: string[]; tickets: RelayTickets } | undefined;
  let relay: HostRelay | undefined;
  if (options.relay) {
    const urls = relayUrls(options.relay.urls);
    if (!urls.ok) return urls;
    tickets = { urls: urls.value, tickets: relayTickets(urls.value, identity, clock) };
  }

  // The store and what is kept in it.
  const db = openDatabase(paths.database);
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
  const mcp = await McpManager.start(mcpConfig.value, {
    onNotice: (notice) => {
      options.onNotice?.(notice);
      if (notice.level === 'info') return;
      mcpFailures.push(notice.text);
      mcpProblems.emit(notice);
    },
    clientVersion: VERSION,
  });

  const plugins = new PluginRuntime({
    statePath: paths.plugins,
    clientVersion: VERSION,
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
  });

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
  const providers = providerFactory(options, clock, defaultModel, modelConfig.value);
  const models = offeredModels(parsedDefault.value, options.env, modelConfig.value);
  const contextOf = (place: string) => (place === 'local' ? local : machines.registry.context(place));
  const catalog = new AgentCatalog(agentSpecs.value.agents, options.env);
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
    prices: prices.value,
  });
  const wrapped = new WrappedPrograms({
    terminals,
    local: localTerminals,
    journal,
    prompts: agentSpecs.value.prompts,
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
      prices: prices.value,
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
  const steering = new SessionSteering({
    manager: sessions,
    sessions: sessionStore,
    journal,
    backends,
    defaultModel,
    agentTitle: (agent) => catalog.get(agent)?.title,
  });
  const gitDeps = {
    session: (id: string) => sessions.get(id),
    contexts: contextOf,
    note: (id: string, level: 'info' | 'warning', text: string) => log.append(id, { type: 'notice', level, text }),
  };
  const git = new SessionGit(gitDeps);
  const worktrees = new Worktrees(gitDeps);
  const commands = new TypedCommands({ manager: sessions, steering, sessions: sessionStore, journal, clock });
  const uploads = new UploadManager({
    store: blobs,
    sessionExists: (id) => sessionStore.get(id) !== undefined,
    clock,
    newId,
  });
  const unsubscribeMcp = mcpProblems.on((notice) => {
    // Sessions running now hear of it at once; others when their next run starts.
    for (const summary of sessions.list()) {
      if (sessions.isRunning(summary.id))
        log.append(summary.id, { type: 'notice', level: notice.level, text: notice.text });
    }
  });
  sessions.recover();
  const agentSessions = new AgentSessions({
    catalog,
    sessions,
    store: acpSessions,
    contexts: (place) => (place === 'local' ? local : machines.registry.context(place)),
    env: options.env,
    clock,
    timeoutMs: options.acpLimits?.startTimeoutMs ?? DEFAULT_ACP_LIMITS.startTimeoutMs,
  });

  const push = PushService.start({
    hostId: identity.hostId,
    hostName: name,
    db,
    vapidPath: paths.vapidKeys,
    configPath: paths.notificationsConfig,
    deviceScopes: (id) => {
      const device = devices.get(id);
      return device && !device.revoked ? device.scopes : undefined;
    },
    sessionTitle: (id) => sessionStore.get(id)?.title,
    sessionNotify: (id) => sessionStore.get(id)?.notify,
    clock,
    ...options.push,
  });
  if (!push.ok) {
    unsubscribeMcp();
    await sessions.shutdown();
    await mcp.close();
    await plugins.close();
    db.close();
    return push;
  }

  // The device side: the gateway and the handler tables it dispatches to; share links' viewers
  // connect to it too, and a new link's URL names where phones reach the host (`reach`, below).
  const shares = new ShareLinks({
    store: new ShareStore(db),
    sessionExists: (id) => sessionStore.get(id) !== undefined,
    deviceIdTaken: (id) => devices.get(id) !== undefined,
    clock,
    random: secureRandom,
  });
  const shareDeps = (viewers: (id: string) => number): ShareHandlerDeps => ({
    links: shares,
    hostBoxPublicKey: identity.box.publicKey,
    place: () => reach.sharePlace(),
    viewers,
  });
  const gateway = new DeviceGateway({
    shares,
    identity,
    devices,
    oneShotHorizon: new OneShotHorizon(db),
    approvableUnopened: (id) => {
      const approval = approvals.get(id);
      return approval === undefined || push.value.lockScreen(approval).lockScreen === 'approve';
    },
    x25519: chooseX25519(),
    secretbox: chooseSecretbox(),
    log,
    clock,
    random: secureRandom,
    newId,
    hostName: name,
    onRequest: (request) => options.onPairRequest?.(request),
    onSettled: (id) => options.onPairSettled?.(id),
    onWarning: (text) => options.onNotice?.({ level: 'warning', text }),
    relay: (deviceId) => tickets?.tickets.details(deviceId),
    ...(options.pairAnswerWaitMs !== undefined ? { answerWaitMs: options.pairAnswerWaitMs } : {}),
    ...(options.pairAttemptsPerMinute !== undefined ? { attemptsPerMinute: options.pairAttemptsPerMinute } : {}),
    handlers: (self) => ({
      ...relayHandlers(
        () => tickets?.tickets,
        () => relay,
      ),
      ...deviceHandlers({
        hostId: identity.hostId,
        hostName: name,
        version: VERSION,
        sessions,
        approvals,
        devices,
        log,
        disconnectDevice: (id) => self.hub.disconnectDevice(id),
        roots,
        // The same list a machine keeps from its host: credential folders and Tether's own data.
        privates,
        models,
        agents: catalog,
        agentSessions,
        features: () => ['machines', 'terminals', 'push', 'git', ...(tickets ? ['relay'] : [])],
        relays: () => tickets?.urls,
        clock,
        machines: machines.registry,
        terminals,
        blobs: { store: blobs, uploads },
        steering,
        commands,
        keepAwake: () => keepAwake.status(),
        worktrees,
      }),
      ...gitHandlers(git),
      ...push.value.handlers(),
      ...shareHandlers(
        shareDeps((id) => self.hub.viewerCount(id)),
        (caller: Caller) => caller.device.label,
      ),
    }),
  });
  const keepAwake = new KeepAwake({
    enabled: options.keepAwake?.enabled ?? true,
    command: options.keepAwake?.command ?? inhibitorFor(process.platform, process.pid),
    spawner: options.keepAwake?.spawner ?? spawnInhibitor,
    busy: () => ({
      activeRuns: sessionStore.listInFlight().length,
      attachedTerminals: terminals.list().filter((t) => t.attached > 0).length,
    }),
    clock,
    onChange: (status) => gateway.publish({ type: 'awake.status', keepAwake: status }),
  });
  const unsubscribers = [
    unsubscribeMcp,
    // A run that starts is held for at once, and the last one to end let go at once; a terminal
    // attached or detached is seen at the next look.
    log.subscribe('keep-awake', (event) => {
      if (event.type === 'session.updated') keepAwake.sessionStatus(event.session.status);
    }),
    log.subscribe('devices', (event) => gateway.publish(event)),
    log.subscribe('push', (event) => push.value.onEvent(event)),
    hostEvents.on((event) => gateway.publish(event)),
  ];

  // The relay link (started with the host), and what phones can reach.
  if (tickets) {
    const made = HostRelay.create({
      urls: tickets.urls,
      identity,
      gateway,
      clock,
      random: secureRandom,
      tickets: tickets.tickets,
      ...(options.onRelayState ? { onState: options.onRelayState } : {}),
      ...(options.onRelayHeld ? { onHeld: options.onRelayHeld } : {}),
    });
    // The URL was checked above, so this cannot fail; if it does, nothing has started yet.
    if (!made.ok) {
      for (const stop of unsubscribers) stop();
      gateway.close();
      shares.close();
      push.value.close();
      machines.close();
      await sessions.shutdown();
      await mcp.close();
      await plugins.close();
      db.close();
      return made;
    }
    relay = made.value;
  }
  const reach = new HostReach(gateway.pairing, relay, identity.sign.publicKey);
  if (relay && !options.remote)
    reach.message = 'listening on no network address: phones reach this host through the relay';

  return ok({
    name,
    startedAt,
    clock,
    identity,
    paths,
    defaultModel,
    db,
    log,
    sessionStore,
    devices,
    approvals,
    mcp,
    plugins,
    machines,
    terminals,
    wrapped,
    sessions,
    trust,
    steering,
    commands,
    blobs,
    uploads,
    agents: { backend: acp, catalog, sessions: agentSessions },
    push: push.value,
    gateway,
    shares,
    relay,
    reach,
    keepAwake,
    controlHandlers: controlHandlers({
      facts: {
        hostId: identity.hostId,
        name,
        version: VERSION,
        dataDir: paths.dir,
        startedAt,
        defaultModel,
      },
      sessions,
      approvals,
      log,
      devices,
      gateway,
      reach: () => reach.reach(),
      pairLink: () => reach.pairLink(),
      push: () => push.value.status(),
      keepAwake: () => keepAwake.status(),
      agents: catalog,
      agentSessions,
      clock,
      machines: machines.handlerDeps(),
      terminals,
      run: (params) => wrapped.start(params),
      blobs: { store: blobs, uploads },
      shares: shareHandlers(
        shareDeps((id) => gateway.hub.viewerCount(id)),
        () => 'this computer',
      ),
      trust: { trust, local },
      steering,
      commands,
      git,
      worktrees,
    }),
    unsubscribe: () => {
      for (const stop of unsubscribers) stop();
    },
  });
}

/** How the built-in loop gets a model provider for a session's model, with retries said as notices. */
function providerFactory(
  options: HostOptions,
  clock: Clock,
  defaultModel: string,
  modelConfig: ModelConfig,
): ProviderFactory {
  return (spec, onNotice) => {
    const parsed = parseModelSpec(spec);
    if (!parsed.ok) return parsed;
    const made = createProvider(parsed.value, options.env, {
      clock,
      ...(options.demoDelayMs !== undefined ? { demo: { delayMs: options.demoDelayMs } } : {}),
      retry: {
        clock,
        ...(options.retryBaseDelayMs !== undefined ? { baseDelayMs: options.retryBaseDelayMs } : {}),
        onRetry: ({ attempt, maxAttempts, delayMs, error }) =>
          onNotice(
            `The model API failed (${error.message}); trying again in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1} of ${maxAttempts}).`,
          ),
      },
    });
    if (!made.ok) return made;
    // --context-window names the default model's; then models.json; then the built-in table.
    const contextWindow =
      spec === defaultModel && options.contextWindow !== undefined
        ? options.contextWindow
        : (configuredWindow(modelConfig, parsed.value) ?? contextWindowFor(parsed.value));
    return ok({ provider: made.value, model: parsed.value.model, contextWindow });
  };
}

/**
 * Models a device may pick: the default first, then the demo, then each provider with a key, then
 * each model `models.json` names whose provider can be reached (an Anthropic or OpenAI model with
 * its key set, any compatible server).
 */
export function offeredModels(
  defaultSpec: ModelSpec,
  environment: NodeJS.ProcessEnv,
  config: ModelConfig = { windows: new Map() },
): string[] {
  const models = [formatModelSpec(defaultSpec), 'demo'];
  if (isSet(environment.ANTHROPIC_API_KEY)) models.push(`anthropic:${DEFAULT_ANTHROPIC_MODEL}`);
  if (isSet(environment.OPENAI_API_KEY)) models.push(`openai:${DEFAULT_OPENAI_MODEL}`);
  for (const spec of config.windows.keys()) {
    const parsed = parseModelSpec(spec);
    if (parsed.ok && createProvider(parsed.value, environment).ok) models.push(spec);
  }
  return [...new Set(models)];
}
