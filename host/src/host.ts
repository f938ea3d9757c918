import type { Clock, HostIdentity, Result } from '@tether/shared-protocol';
import { fail, ok, secureRandom, systemClock } from '@tether/shared-protocol';
import { hostname } from 'node:os';
import { ApprovalBroker } from './agent/approval-broker.js';
import type { ProviderFactory } from './agent/session-manager.js';
import { SessionManager } from './agent/session-manager.js';
import type { DataPaths } from './config/data-dir.js';
import { dataPaths, prepareDataDir } from './config/data-dir.js';
import { loadOrCreateIdentity } from './config/host-identity.js';
import { ControlServer } from './control/control-server.js';
import { controlHandlers } from './control/control-handlers.js';
import { LocalContext } from '@tether/machine';
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
import type { PairRequestInfo } from './remote/pairing-service.js';
import { RemoteServer } from './remote/remote-server.js';
import type { ListenOptions } from './remote/start-remote.js';
import { needsRenewal, planListen } from './remote/start-remote.js';
import { DeviceStore } from './store/device-store.js';

export interface HostOptions {
  dataDir: string;
  /** `--model`; the default follows the API keys in `env`. */
  model?: string;
  /** `--mcp-config`; otherwise `<data-dir>/mcp.json` when it exists. */
  mcpConfig?: string;
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Things the person at the computer should see (MCP failures, retries). */
  onNotice?: (notice: McpNotice) => void;
  /** Milliseconds between the demo model's words (tests make it fast). */
  demoDelayMs?: number;
  /** Milliseconds of the first retry wait after a 429/5xx (tests make it short). */
  retryBaseDelayMs?: number;
  /** The remote-control server for phones; none when absent (the local CLI still works). */
  remote?: RemoteOptions;
  /** A pair request waits at the computer for the person's answer. */
  onPairRequest?: (request: PairRequestInfo) => void;
  /** It was answered, or gave up. */
  onPairSettled?: (id: string) => void;
}

export interface RemoteOptions extends ListenOptions {
  /** Folders devices may start sessions in. */
  roots: string[];
  /** The built app; `<repo>/pwa/dist` by default. */
  appDir?: string;
  /** More origins allowed to call the remote endpoints (a relay's app origin). */
  extraOrigins?: string[];
  /** Milliseconds a pair request waits for the person's answer (tests shorten it). */
  pairAnswerWaitMs?: number;
  /** Pair attempts per source address per minute (default 10; the fuzzer raises it). */
  pairAttemptsPerMinute?: number;
}

/**
 * The host: its identity, store, sessions and agent loop, MCP servers and the local control
 * socket. Later parts (the remote-control server, machines, push, the relay link) attach to the
 * same event log and session manager.
 */
export class Host {
  readonly startedAt: number;
  readonly name = hostname();
  private closed = false;
  /** The remote-control server, when phones can reach this host. */
  remote: RemoteServer | undefined;
  /** Why phones can or cannot reach this host, in words for the person. */
  remoteMessage = 'remote control is off';
  private renewTimer: NodeJS.Timeout | undefined;
  readonly devices: DeviceStore;

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
    private control: ControlServer | undefined,
  ) {
    this.startedAt = clock.now();
    this.devices = new DeviceStore(db);
  }

  static async start(options: HostOptions): Promise<Result<Host>> {
    const clock = options.clock ?? systemClock;
    const paths = dataPaths(options.dataDir);
    const dir = prepareDataDir(paths.dir);
    if (!dir.ok) return fail('unavailable', dir.message);
    const identity = loadOrCreateIdentity(paths.identity);
    if (!identity.ok) return fail('unavailable', identity.message);

    const defaultModel = options.model ?? formatModelSpec(defaultModelSpec(options.env));
    const parsedDefault = parseModelSpec(defaultModel);
    if (!parsedDefault.ok) return fail('invalid-params', parsedDefault.message);
    const checked = createProvider(parsedDefault.value, options.env);
    if (!checked.ok) return fail('invalid-params', checked.message);

    const mcpConfig = loadMcpConfig(options.mcpConfig ?? paths.mcpConfig, {
      required: options.mcpConfig !== undefined,
    });
    if (!mcpConfig.ok) return fail('invalid-params', mcpConfig.message);

    const db = openDatabase(paths.database);
    const log = new EventLog(db, clock);
    const sessionStore = new SessionStore(db);
    const approvals = new ApprovalBroker(new ApprovalStore(db), log, clock, () => newId('a'));
    const mcpFailures: string[] = [];
    // Made after the MCP servers start, which may already report failures to it.
    const late: { sessions?: SessionManager } = {};
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
      if (!parsed.ok) return fail('invalid-params', parsed.message);
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
      if (!made.ok) return fail('invalid-params', made.message);
      return ok({ provider: made.value, model: parsed.value.model });
    };
    const local = new LocalContext();
    const sessions = new SessionManager({
      sessions: sessionStore,
      log,
      approvals,
      providers,
      contexts: (place) => (place === 'local' ? local : undefined),
      tools: () => [...BUILTIN_TOOLS, ...mcp.tools().map(mcpAgentTool)],
      clock,
      newId,
      defaultModel,
      startNotices: () => mcpFailures,
    });
    late.sessions = sessions;
    sessions.recover();

    const host = new Host(
      identity.identity,
      paths,
      db,
      log,
      sessionStore,
      approvals,
      sessions,
      mcp,
      defaultModel,
      clock,
      undefined,
    );
    const control = await ControlServer.listen(paths.controlSocket, controlHandlers(host));
    if (!control.ok) {
      await mcp.close();
      db.close();
      return control;
    }
    host.control = control.value;
    log.subscribe((event) => host.control?.broadcast(event));
    if (options.remote) {
      const started = await host.startRemote(options.remote, options, options.env, parsedDefault.value);
      if (!started.ok) {
        await host.close();
        return started;
      }
    }
    return ok(host);
  }

  private async startRemote(
    remote: RemoteOptions,
    options: HostOptions,
    environment: NodeJS.ProcessEnv,
    defaultSpec: ModelSpec,
  ): Promise<Result<void>> {
    const plan = await planListen(remote, this.paths.dir);
    if (!plan.ok) return { ok: false, error: { code: plan.error.code, message: plan.error.message } };
    if (!plan.value) {
      this.remoteMessage = 'message' in plan ? plan.message : 'remote control is off';
      return ok(undefined);
    }
    const listen = plan.value;
    const server = await RemoteServer.start({
      address: listen.address,
      port: remote.port,
      ...(listen.tls ? { tls: listen.tls } : {}),
      identity: this.identity,
      hostName: this.name,
      version: VERSION,
      devices: this.devices,
      log: this.log,
      sessions: this.sessions,
      approvals: this.approvals,
      roots: remote.roots,
      models: offeredModels(defaultSpec, environment),
      app: loadAppFiles(remote.appDir ?? DEFAULT_APP_DIR),
      ...(remote.extraOrigins ? { extraOrigins: remote.extraOrigins } : {}),
      ...(remote.pairAnswerWaitMs !== undefined ? { pairAnswerWaitMs: remote.pairAnswerWaitMs } : {}),
      ...(remote.pairAttemptsPerMinute !== undefined ? { pairAttemptsPerMinute: remote.pairAttemptsPerMinute } : {}),
      clock: this.clock,
      random: secureRandom,
      newId,
      onPairRequest: (request) => options.onPairRequest?.(request),
      onPairSettled: (id) => options.onPairSettled?.(id),
      onWarning: (text) => options.onNotice?.({ level: 'warning', text }),
    });
    if (!server.ok) return server;
    this.remote = server.value;
    this.remoteMessage = `phones reach this host at ${server.value.url} (${listen.kind}${listen.tls ? ', HTTPS' : ', plain HTTP'})`;
    if (listen.renew && listen.tls) {
      let validTo = listen.tls.validTo;
      const renew = listen.renew;
      // Checked twice a day; renewed two weeks before expiry, without dropping connections.
      this.renewTimer = setInterval(
        () => {
          if (!needsRenewal(validTo, new Date(this.clock.now()))) return;
          void renew().then((tls) => {
            if (!tls)
              return options.onNotice?.({
                level: 'warning',
                text: 'renewing the Tailscale certificate failed; will try again',
              });
            validTo = tls.validTo;
            this.remote?.setTls(tls);
          });
        },
        12 * 3600 * 1000,
      );
      this.renewTimer.unref();
    }
    return ok(undefined);
  }

  get hostId(): string {
    return this.identity.hostId;
  }

  /** Stops cleanly: runs are interrupted and recorded as such, servers closed, the store closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.renewTimer) clearInterval(this.renewTimer);
    await this.remote?.close();
    await this.sessions.shutdown();
    await this.control?.close();
    await this.mcp.close();
    this.db.close();
  }
}

/** Models a device may pick: the default first, then the demo, then each provider with a key. */
export function offeredModels(defaultSpec: ModelSpec, environment: NodeJS.ProcessEnv): string[] {
  const models = [formatModelSpec(defaultSpec), 'demo'];
  if (isSet(environment.ANTHROPIC_API_KEY)) models.push(`anthropic:${DEFAULT_ANTHROPIC_MODEL}`);
  if (isSet(environment.OPENAI_API_KEY)) models.push(`openai:${DEFAULT_OPENAI_MODEL}`);
  return [...new Set(models)];
}
