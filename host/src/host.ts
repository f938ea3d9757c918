import type { Clock, HostIdentity, Result } from '@tether/shared-protocol';
import { CONTROL_METHODS, every, fail, ok, secureRandom, systemClock } from '@tether/shared-protocol';
import { homedir, hostname } from 'node:os';
import { ApprovalBroker } from './agent/approval-broker.js';
import type { ProviderFactory } from './agent/builtin-backend.js';
import { BuiltinBackend } from './agent/builtin-backend.js';
import { hostLocalContext } from './agent/host-context.js';
import { SessionManager } from './agent/session-manager.js';
import type { DataPaths } from './config/data-dir.js';
import { dataPaths, prepareDataDir } from './config/data-dir.js';
import { loadOrCreateIdentity } from './config/host-identity.js';
import { ControlServer } from './control/control-server.js';
import { NodePtyPort, PtyTerminals, privatePaths } from '@tether/machine';
import { DeviceGateway } from './gateway/device-gateway.js';
import { OneShotHorizon } from './gateway/one-shot-horizon.js';
import type { PairRequestInfo } from './gateway/pairing-service.js';
import { newId } from './ids.js';
import { loadMcpConfig } from './mcp/mcp-config.js';
import { McpManager } from './mcp/mcp-manager.js';
import type { McpNotice } from './mcp/types.js';
import { defaultModelSpec, formatModelSpec, parseModelSpec } from './models/model-spec.js';
import { createProvider } from './models/registry.js';
import type { Db } from './store/database.js';
import { openDatabase } from './store/database.js';
import { EventLog } from './store/event-log.js';
import { ApprovalStore } from './store/approval-store.js';
import { SessionStore } from './store/session-store.js';
import { BUILTIN_TOOLS } from './tools/builtin-tools.js';
import { mcpAgentTool } from './tools/mcp-tool.js';
import { VERSION } from './version.js';
import type { ModelSpec } from './models/model-spec.js';
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, isSet } from './models/model-spec.js';
import { DEFAULT_APP_DIR, loadAppFiles } from './remote/app-files.js';
import { LanListener } from './remote/lan-listener.js';
import type { ListenOptions } from './remote/start-remote.js';
import { needsRenewal, planListen } from './remote/start-remote.js';
import { controlHandlers } from './rpc/control-handlers.js';
import type { Reach } from './rpc/control-handlers.js';
import { deviceHandlers } from './rpc/device-handlers.js';
import { createDispatch } from './rpc/dispatch.js';
import { DeviceStore } from './store/device-store.js';
import type { PushSender } from './push/push-sender.js';
import { PushService } from './push/push-service.js';
import type { Agent } from 'node:https';
import { HostMachines } from './machines/host-machines.js';
import { AcpBackend, DEFAULT_ACP_LIMITS } from './agents/acp-backend.js';
import { AgentSessions } from './agents/agent-sessions.js';
import type { AcpLimits } from './agents/acp-backend.js';
import { AcpSessionStore } from './agents/acp-session-store.js';
import { AgentCatalog } from './agents/agent-catalog.js';
import { agentsConfigPath, loadAgents } from './agents/agent-config.js';
import { TerminalManager } from './terminals/terminal-manager.js';
import { WrappedPrograms } from './terminals/wrapped-programs.js';
import type { PromptSets } from './terminals/prompt-watch.js';
import { HostRelay } from './relay/host-relay.js';
import type { RelayLinkState } from './relay/relay-link.js';
import { relayHandlers } from './relay/relay-handlers.js';

export interface HostOptions {
  dataDir: string;
  /** `--model`; the default follows the API keys in `env`. */
  model?: string;
  /** `--mcp-config`; otherwise `<data-dir>/mcp.json` when it exists. */
  mcpConfig?: string;
  /** `--agents-config`; otherwise `<data-dir>/agents.json` when it exists (else the ready entries only). */
  agentsConfig?: string;
  /** Bounds of ACP agent runs (tests shorten the timeouts). */
  acpLimits?: Partial<AcpLimits>;
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Things the person at the computer should see (MCP failures, retries). */
  onNotice?: (notice: McpNotice) => void;
  /** Milliseconds between the demo model's words (tests make it fast). */
  demoDelayMs?: number;
  /** Milliseconds of the first retry wait after a 429/5xx (tests make it short). */
  retryBaseDelayMs?: number;
  /** Folders devices may start sessions in (`--root`); the home folder when absent. */
  roots?: string[];
  /** The LAN or Tailscale listener for phones; none when absent (the local CLI still works). */
  remote?: RemoteOptions;
  /** Milliseconds a pair request waits for the person's answer (tests shorten it). */
  pairAnswerWaitMs?: number;
  /** Pair attempts per source address per minute (default 10; the fuzzer raises it). */
  pairAttemptsPerMinute?: number;
  /** A pair request waits at the computer for the person's answer. */
  onPairRequest?: (request: PairRequestInfo) => void;
  /** It was answered, or gave up. */
  onPairSettled?: (id: string) => void;
  /** Push: a sender in place of Web Push (tests), or an agent trusting a test push service's CA. */
  push?: {
    sender?: PushSender;
    agent?: Agent;
    requestTimeoutMs?: number;
    extraPushOrigins?: string[];
    retryBaseMs?: number;
  };
  /** Model calls a run may make before it waits for a go-on (`--max-model-calls`), unless a
   * session sets its own. */
  maxModelCalls?: number;
  /** Milliseconds a session's call waits for an offline machine before its run stops (default 15 min). */
  machineWaitMs?: number;
  /** Milliseconds a terminal with no device attached stays open (default 30 min). */
  terminalIdleMs?: number;
  /** Milliseconds a wrapped program's output is still before its screen is read for a question. */
  promptQuietMs?: number;
  /** `--relay URL`: keep a link to this relay, so phones anywhere reach the host through it. */
  relay?: { url: string };
  /** The relay link changed state (linked, waiting, stopped). */
  onRelayState?: (state: RelayLinkState) => void;
}

export interface RemoteOptions extends ListenOptions {
  /** Folders devices may start sessions in. */
  roots: string[];
  /** The built app; `<repo>/pwa/dist` by default. */
  appDir?: string;
  /** More origins allowed to call the remote endpoints (a relay's app origin). */
  extraOrigins?: string[];
}

/** Milliseconds between checks of a Tailscale certificate's expiry: twice a day. */
const RENEW_CHECK_MS = 12 * 3600 * 1000;

/**
 * The host: its identity, store, sessions and agent loop, MCP servers, the local control
 * socket, and the device gateway that phones reach through the listener (and later a relay).
 */
export class Host {
  readonly startedAt: number;
  readonly name = hostname();
  private closed = false;
  /** The LAN or Tailscale listener, when phones can reach this host directly. */
  listener: LanListener | undefined;
  /** The link to a relay, with `--relay`. */
  relay: HostRelay | undefined;
  /** Why phones can or cannot reach this host, in words for the person. */
  reachMessage = 'remote control is off';
  private stopRenewals: (() => void) | undefined;
  readonly devices: DeviceStore;
  readonly gateway: DeviceGateway;
  readonly terminals: TerminalManager;
  /** Programs run with `tether run`, followed as `terminal` sessions. */
  readonly wrapped: WrappedPrograms;
  private control: ControlServer | undefined;
  private readonly unsubscribe: () => void;

  private constructor(
    readonly identity: HostIdentity,
    readonly paths: DataPaths,
    readonly db: Db,
    readonly log: EventLog,
    readonly sessionStore: SessionStore,
    readonly approvals: ApprovalBroker,
    readonly sessions: SessionManager,
    readonly mcp: McpManager,
    readonly defaultModel: string,
    readonly clock: Clock,
    options: HostOptions,
    models: readonly string[],
    readonly machines: HostMachines,
    readonly agents: {
      backend: AcpBackend;
      catalog: AgentCatalog;
      prompts: PromptSets;
      sessions: AgentSessions;
    },
    readonly push: PushService,
  ) {
    this.startedAt = clock.now();
    this.devices = new DeviceStore(db);
    const roots = options.remote?.roots ?? options.roots ?? [homedir()];
    const localTerminals = new PtyTerminals({ pty: new NodePtyPort(), roots, clock, env: options.env });
    this.terminals = new TerminalManager({
      clock,
      newId,
      place: (machine) => (machine === 'local' ? ok(localTerminals) : machines.registry.terminals(machine)),
      ...(options.terminalIdleMs !== undefined ? { idleMs: options.terminalIdleMs } : {}),
    });
    this.wrapped = new WrappedPrograms({
      terminals: this.terminals,
      local: localTerminals,
      sessions: sessionStore,
      log,
      announce: (id) => sessions.announce(id),
      prompts: agents.prompts,
      clock,
      newId,
      ...(options.promptQuietMs !== undefined ? { quietMs: options.promptQuietMs } : {}),
    });
    this.gateway = new DeviceGateway({
      identity,
      devices: this.devices,
      oneShotHorizon: new OneShotHorizon(db),
      log,
      clock,
      random: secureRandom,
      newId,
      hostName: this.name,
      onRequest: (request) => options.onPairRequest?.(request),
      onSettled: (id) => options.onPairSettled?.(id),
      onWarning: (text) => options.onNotice?.({ level: 'warning', text }),
      relay: (deviceId) => this.relay?.tickets.details(deviceId),
      ...(options.pairAnswerWaitMs !== undefined ? { answerWaitMs: options.pairAnswerWaitMs } : {}),
      ...(options.pairAttemptsPerMinute !== undefined ? { attemptsPerMinute: options.pairAttemptsPerMinute } : {}),
      handlers: (gateway) => ({
        ...relayHandlers(() => this.relay?.tickets),
        ...deviceHandlers({
          hostId: identity.hostId,
          hostName: this.name,
          version: VERSION,
          sessions,
          approvals,
          devices: this.devices,
          log,
          disconnectDevice: (id) => gateway.hub.disconnectDevice(id),
          roots,
          // The same list a machine keeps from its host: credential folders and Tether's own data.
          privates: privatePaths(options.env ? { env: options.env } : {}),
          models,
          agents: agents.catalog,
          agentSessions: agents.sessions,
          features: () => ['machines', 'terminals', 'push', ...(this.relay ? ['relay'] : [])],
          clock,
          machines: machines.registry,
          terminals: this.terminals,
        }),
        ...push.handlers(),
      }),
    });
    const unsubscribeDevices = log.subscribe('devices', (event) => this.gateway.publish(event));
    const unsubscribePush = log.subscribe('push', (event) => push.onEvent(event));
    this.unsubscribe = () => {
      unsubscribeDevices();
      unsubscribePush();
    };
    machines.publish = (event) => this.gateway.publish(event);
  }

  static async start(options: HostOptions): Promise<Result<Host>> {
    const clock = options.clock ?? systemClock;
    const paths = dataPaths(options.dataDir);
    const dir = prepareDataDir(paths.dir);
    if (!dir.ok) return dir;
    const identity = loadOrCreateIdentity(paths.identity);
    if (!identity.ok) return identity;

    const defaultModel = options.model ?? formatModelSpec(defaultModelSpec(options.env));
    const parsedDefault = parseModelSpec(defaultModel);
    if (!parsedDefault.ok) return parsedDefault;
    const checked = createProvider(parsedDefault.value, options.env);
    if (!checked.ok) return checked;

    const mcpConfig = loadMcpConfig(options.mcpConfig ?? paths.mcpConfig, {
      required: options.mcpConfig !== undefined,
    });
    if (!mcpConfig.ok) return mcpConfig;

    const agentSpecs = loadAgents(options.agentsConfig ?? agentsConfigPath(paths.dir), {
      required: options.agentsConfig !== undefined,
    });
    if (!agentSpecs.ok) return agentSpecs;

    const db = openDatabase(paths.database);
    const log = new EventLog(db, clock);
    const sessionStore = new SessionStore(db);
    if (options.maxModelCalls !== undefined) sessionStore.activity.setHostLimit(options.maxModelCalls);
    const approvals = new ApprovalBroker(new ApprovalStore(db), log, clock, () => newId('a'));
    const mcpFailures: string[] = [];
    // Made after the MCP servers start, which may already report failures to it.
    const late: { sessions?: SessionManager; wrapped?: WrappedPrograms } = {};
    const onMcpNotice = (notice: McpNotice) => {
      options.onNotice?.(notice);
      if (notice.level === 'info') return;
      mcpFailures.push(notice.text);
      // Sessions running now hear of it at once; others when their next run starts.
      for (const summary of late.sessions?.list() ?? []) {
        if (late.sessions?.isRunning(summary.id))
          log.append(summary.id, { type: 'notice', level: notice.level, text: notice.text });
      }
    };
    const mcp = await McpManager.start(mcpConfig.value, { onNotice: onMcpNotice, clientVersion: VERSION });

    const providers: ProviderFactory = (spec, onNotice) => {
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
      return ok({ provider: made.value, model: parsed.value.model });
    };
    const local = hostLocalContext(options.env);
    // Machine status goes to the devices once the gateway exists (the constructor wires it).
    const machines = new HostMachines({
      db,
      identity: identity.value.identity,
      clock,
      ...(options.machineWaitMs !== undefined ? { waitMs: options.machineWaitMs } : {}),
      publish: (event) => machines.publish?.(event),
      sessionsOn: (name) => late.sessions?.list(true).filter((s) => s.place === name).length ?? 0,
    });
    const catalog = new AgentCatalog(agentSpecs.value.agents, options.env);
    const acpSessions = new AcpSessionStore(db);
    const acp = new AcpBackend({
      catalog,
      log,
      sessions: acpSessions,
      clock,
      env: options.env,
      ...(options.acpLimits ? { limits: options.acpLimits } : {}),
    });
    const sessions = new SessionManager({
      sessions: sessionStore,
      log,
      approvals,
      backends: {
        agent: new BuiltinBackend({
          log,
          providers,
          tools: () => [...BUILTIN_TOOLS, ...mcp.tools().map(mcpAgentTool)],
        }),
        acp,
      },
      contexts: (place, run) => (place === 'local' ? local : machines.registry.context(place, run)),
      clock,
      newId,
      defaultModel,
      startNotices: () => mcpFailures,
      // Messages to wrapped programs, once the host (which holds the terminals) exists.
      terminals: {
        type: (id, text) => late.wrapped?.type(id, text) ?? fail('unavailable', 'the host is starting'),
        interrupt: (id) => late.wrapped?.interrupt(id) ?? fail('unavailable', 'the host is starting'),
      },
    });
    late.sessions = sessions;
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
      hostId: identity.value.identity.hostId,
      db,
      vapidPath: paths.vapidKeys,
      configPath: paths.notificationsConfig,
      deviceScopes: (id) => {
        const device = new DeviceStore(db).get(id);
        return device && !device.revoked ? device.scopes : undefined;
      },
      sessionTitle: (id) => sessionStore.get(id)?.title,
      clock,
      ...options.push,
    });
    if (!push.ok) {
      await sessions.shutdown();
      await mcp.close();
      db.close();
      return push;
    }

    const host = new Host(
      identity.value.identity,
      paths,
      db,
      log,
      sessionStore,
      approvals,
      sessions,
      mcp,
      defaultModel,
      clock,
      options,
      offeredModels(parsedDefault.value, options.env),
      machines,
      { backend: acp, catalog, prompts: agentSpecs.value.prompts, sessions: agentSessions },
      push.value,
    );
    late.wrapped = host.wrapped;
    const control = await ControlServer.listen(
      paths.controlSocket,
      createDispatch(CONTROL_METHODS, host.controlHandlers()),
    );
    if (!control.ok) {
      await host.close();
      return control;
    }
    host.control = control.value;
    log.subscribe('control', (event) => host.control?.broadcast(event));
    if (options.remote) {
      const started = await host.listen(options.remote, options);
      if (!started.ok) {
        await host.close();
        return started;
      }
    }
    if (options.relay) {
      const relay = HostRelay.create({
        url: options.relay.url,
        identity: host.identity,
        gateway: host.gateway,
        clock,
        random: secureRandom,
        ...(options.onRelayState ? { onState: options.onRelayState } : {}),
      });
      if (!relay.ok) {
        await host.close();
        return relay;
      }
      host.relay = relay.value;
      if (!options.remote)
        host.reachMessage = 'listening on no network address: phones reach this host through the relay';
      relay.value.start();
    }
    return ok(host);
  }

  get hostId(): string {
    return this.identity.hostId;
  }

  /** Whether and where phones reach this host. */
  reach(): Reach {
    return {
      listening: this.listener !== undefined,
      url: this.listener?.url ?? null,
      mode: this.listener?.mode ?? null,
      message: this.reachMessage,
      ...(this.relay ? { relay: this.relay.status() } : {}),
    };
  }

  /** The current pairing link, on the origin phones load the app from. */
  pairLink(): Result<{ link: string; expiresAt: number; relay?: { url: string; link: string } }> {
    const relay = this.relay && this.relay.pairLink((base) => this.gateway.pairing.currentLink(base));
    const withRelay = relay && { relay: { url: this.relay!.url, link: relay.link } };
    if (this.listener) {
      const direct = this.gateway.pairing.currentLink(this.listener.url);
      return ok({
        link: this.relay ? this.relay.withHint(direct.link) : direct.link,
        expiresAt: direct.expiresAt,
        ...withRelay,
      });
    }
    if (relay) return ok({ ...relay, ...withRelay });
    return fail('unavailable', `no phone can reach this host: ${this.reachMessage}`);
  }

  /** Stops cleanly: runs are interrupted and recorded as such, servers closed, the store closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopRenewals?.();
    this.unsubscribe();
    this.terminals.closeAll();
    this.gateway.close();
    this.push.close();
    // Calls waiting for an offline machine fail now, so no run holds the shutdown.
    this.machines.close();
    this.relay?.stop();
    await this.listener?.close();
    await this.sessions.shutdown();
    await this.agents.backend.close();
    await this.control?.close();
    await this.mcp.close();
    this.db.close();
  }

  private controlHandlers() {
    return controlHandlers({
      facts: {
        hostId: this.hostId,
        name: this.name,
        version: VERSION,
        dataDir: this.paths.dir,
        startedAt: this.startedAt,
        defaultModel: this.defaultModel,
      },
      sessions: this.sessions,
      approvals: this.approvals,
      log: this.log,
      devices: this.devices,
      gateway: this.gateway,
      reach: () => this.reach(),
      pairLink: () => this.pairLink(),
      push: () => this.push.status(),
      agents: this.agents.catalog,
      agentSessions: this.agents.sessions,
      clock: this.clock,
      machines: this.machines.handlerDeps(),
      terminals: this.terminals,
      run: (params) => this.wrapped.run(params),
    });
  }

  /** Starts the LAN or Tailscale listener in front of the device gateway. */
  private async listen(remote: RemoteOptions, options: HostOptions): Promise<Result<void>> {
    const plan = await planListen(remote, this.paths.dir);
    if (!plan.ok) return plan;
    if (!plan.value.plan) {
      this.reachMessage = plan.value.why;
      return ok(undefined);
    }
    const listen = plan.value.plan;
    const server = await LanListener.start({
      address: listen.address,
      port: remote.port,
      ...(listen.tls ? { tls: listen.tls } : {}),
      gateway: this.gateway,
      machines: this.machines.linkServer(this.gateway.stats),
      clock: this.clock,
      app: loadAppFiles(remote.appDir ?? DEFAULT_APP_DIR),
      ...(remote.extraOrigins ? { extraOrigins: remote.extraOrigins } : {}),
      connectSources: () => this.relay?.connectSources() ?? [],
    });
    if (!server.ok) return server;
    this.listener = server.value;
    this.reachMessage = `phones reach this host at ${server.value.url} (${listen.kind}${listen.tls ? ', HTTPS' : ', plain HTTP'})`;
    if (listen.kind === 'cgnat')
      options.onNotice?.({
        level: 'warning',
        text: `listening on ${listen.address} as asked: it is in 100.64.0.0/10 but Tailscale does not list it, so other customers of a carrier-grade NAT or VPN may reach it`,
      });
    if (listen.renew && listen.tls) {
      let validTo = listen.tls.validTo;
      const renew = listen.renew;
      // Renewed two weeks before expiry, without dropping connections.
      this.stopRenewals = every(this.clock, RENEW_CHECK_MS, () => {
        if (!needsRenewal(validTo, new Date(this.clock.now()))) return;
        void renew().then((tls) => {
          if (!tls)
            return options.onNotice?.({
              level: 'warning',
              text: 'renewing the Tailscale certificate failed; will try again',
            });
          validTo = tls.validTo;
          this.listener?.setTls(tls);
        });
      });
    }
    return ok(undefined);
  }
}

/** Models a device may pick: the default first, then the demo, then each provider with a key. */
export function offeredModels(defaultSpec: ModelSpec, environment: NodeJS.ProcessEnv): string[] {
  const models = [formatModelSpec(defaultSpec), 'demo'];
  if (isSet(environment.ANTHROPIC_API_KEY)) models.push(`anthropic:${DEFAULT_ANTHROPIC_MODEL}`);
  if (isSet(environment.OPENAI_API_KEY)) models.push(`openai:${DEFAULT_OPENAI_MODEL}`);
  return [...new Set(models)];
}
