import type { UploadManager } from './blobs/upload-manager.js';
import type { BlobStore } from './store/blob-store.js';
import type { Clock, HostIdentity, Result } from '@tether/shared-protocol';
import { CONTROL_METHODS, every, ok } from '@tether/shared-protocol';
import type { DataPaths } from './config/data-dir.js';
import type { SessionSteering } from './sessions/session-steering.js';
import type { TypedCommands } from './sessions/typed-commands.js';
import { ControlServer } from './control/control-server.js';
import type { DeviceGateway } from './gateway/device-gateway.js';
import type { HostMachines } from './machines/host-machines.js';
import type { McpManager } from './mcp/mcp-manager.js';
import type { PushService } from './push/push-service.js';
import type { HostRelay } from './relay/host-relay.js';
import { DEFAULT_APP_DIR, loadAppFiles } from './remote/app-files.js';
import { LanListener } from './remote/lan-listener.js';
import { needsRenewal, planListen } from './remote/start-remote.js';
import type { Reach } from './rpc/control-handlers.js';
import { createDispatch } from './rpc/dispatch.js';
import type { ApprovalBroker } from './sessions/approval-broker.js';
import type { SessionManager } from './sessions/session-manager.js';
import type { WrappedPrograms } from './sessions/wrapped/wrapped-programs.js';
import type { Db } from './store/database.js';
import type { DeviceStore } from './store/device-store.js';
import type { EventLog } from './store/event-log.js';
import type { SessionStore } from './store/session-store.js';
import type { TerminalManager } from './terminals/terminal-manager.js';
import type { HostParts } from './wiring/build-host.js';
import { buildHost } from './wiring/build-host.js';
import type { HostOptions, RemoteOptions } from './wiring/host-options.js';

export type { HostOptions, RemoteOptions } from './wiring/host-options.js';

/** Milliseconds between checks of a Tailscale certificate's expiry: twice a day. */
const RENEW_CHECK_MS = 12 * 3600 * 1000;

/**
 * A running host: its parts (built by `buildHost`), the transports in front of them (the control
 * socket, the LAN or Tailscale listener, the relay link), and stopping it all.
 */
export class Host {
  private closed = false;
  private control: ControlServer | undefined;
  private relayStarted = false;
  private stopRenewals: (() => void) | undefined;
  private stopControlEvents: (() => void) | undefined;

  private constructor(
    readonly parts: HostParts,
    private readonly options: HostOptions,
  ) {}

  /** Builds the parts, then opens the control socket, the listener (`remote`) and the relay link. */
  static async start(options: HostOptions): Promise<Result<Host>> {
    const built = await buildHost(options);
    if (!built.ok) return built;
    const host = new Host(built.value, options);
    const started = await host.open();
    if (!started.ok) {
      await host.close();
      return started;
    }
    return ok(host);
  }

  private async open(): Promise<Result<void>> {
    const { parts } = this;
    const control = await ControlServer.listen(
      parts.paths.controlSocket,
      createDispatch(CONTROL_METHODS, parts.controlHandlers),
    );
    if (!control.ok) return control;
    this.control = control.value;
    this.stopControlEvents = parts.log.subscribe('control', (event) => this.control?.broadcast(event));
    parts.keepAwake.start();
    if (this.options.remote) {
      const listening = await this.listen(this.options.remote);
      if (!listening.ok) return listening;
    }
    if (parts.relay) {
      this.relayStarted = true;
      parts.relay.start();
    }
    return ok(undefined);
  }

  get hostId(): string {
    return this.parts.identity.hostId;
  }
  get name(): string {
    return this.parts.name;
  }
  get startedAt(): number {
    return this.parts.startedAt;
  }
  get identity(): HostIdentity {
    return this.parts.identity;
  }
  get paths(): DataPaths {
    return this.parts.paths;
  }
  get clock(): Clock {
    return this.parts.clock;
  }
  get defaultModel(): string {
    return this.parts.defaultModel;
  }
  get db(): Db {
    return this.parts.db;
  }
  get log(): EventLog {
    return this.parts.log;
  }
  get sessionStore(): SessionStore {
    return this.parts.sessionStore;
  }
  /** Attachments kept by this host. */
  get blobs(): BlobStore {
    return this.parts.blobs;
  }

  /** Attachments on their way in. */
  get uploads(): UploadManager {
    return this.parts.uploads;
  }

  get sessions(): SessionManager {
    return this.parts.sessions;
  }
  /** Modes, models and budgets of sessions. */
  get steering(): SessionSteering {
    return this.parts.steering;
  }
  /** The own loop's slash commands, as a message (`sessions.send`) carries them. */
  get commands(): TypedCommands {
    return this.parts.commands;
  }
  get approvals(): ApprovalBroker {
    return this.parts.approvals;
  }
  get devices(): DeviceStore {
    return this.parts.devices;
  }
  get gateway(): DeviceGateway {
    return this.parts.gateway;
  }
  get terminals(): TerminalManager {
    return this.parts.terminals;
  }
  /** Programs run with `tether run`, followed as `terminal` sessions. */
  get wrapped(): WrappedPrograms {
    return this.parts.wrapped;
  }
  get machines(): HostMachines {
    return this.parts.machines;
  }
  get mcp(): McpManager {
    return this.parts.mcp;
  }
  get push(): PushService {
    return this.parts.push;
  }
  get agents(): HostParts['agents'] {
    return this.parts.agents;
  }
  /** The LAN or Tailscale listener, when phones can reach this host directly. */
  get listener(): LanListener | undefined {
    return this.parts.reach.listener;
  }
  /** The link to a relay, with `--relay`. */
  get relay(): HostRelay | undefined {
    return this.parts.reach.relay;
  }
  /** Why phones can or cannot reach this host, in words for the person. */
  get reachMessage(): string {
    return this.parts.reach.message;
  }

  /** Whether and where phones reach this host. */
  reach(): Reach {
    return this.parts.reach.reach();
  }

  /** The current pairing link, on the origin phones load the app from. */
  pairLink(): ReturnType<HostParts['reach']['pairLink']> {
    return this.parts.reach.pairLink();
  }

  /** Stops cleanly: runs are interrupted and recorded as such, servers closed, the store closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const { parts } = this;
    this.stopRenewals?.();
    this.stopControlEvents?.();
    parts.unsubscribe();
    parts.keepAwake.stop();
    parts.terminals.closeAll();
    parts.gateway.close();
    parts.shares.close();
    parts.push.close();
    parts.uploads.close();
    // Calls waiting for an offline machine fail now, so no run holds the shutdown.
    parts.machines.close();
    if (this.relayStarted) parts.relay?.stop();
    await parts.reach.listener?.close();
    await parts.sessions.shutdown();
    await parts.agents.backend.close();
    await this.control?.close();
    await parts.mcp.close();
    await parts.plugins.close();
    parts.db.close();
  }

  /** Starts the LAN or Tailscale listener in front of the device gateway. */
  private async listen(remote: RemoteOptions): Promise<Result<void>> {
    const { parts, options } = this;
    const { reach, clock } = parts;
    const plan = await planListen(remote, parts.paths.dir);
    if (!plan.ok) return plan;
    if (!plan.value.plan) {
      reach.message = plan.value.why;
      return ok(undefined);
    }
    const listen = plan.value.plan;
    const server = await LanListener.start({
      address: listen.address,
      port: remote.port,
      ...(listen.tls ? { tls: listen.tls } : {}),
      gateway: parts.gateway,
      machines: parts.machines.linkServer(parts.gateway.stats),
      clock,
      app: loadAppFiles(remote.appDir ?? DEFAULT_APP_DIR),
      ...(remote.extraOrigins ? { extraOrigins: remote.extraOrigins } : {}),
      connectSources: () => parts.relay?.connectSources() ?? [],
    });
    if (!server.ok) return server;
    reach.listener = server.value;
    reach.message = `phones reach this host at ${server.value.url} (${listen.kind}${listen.tls ? ', HTTPS' : ', plain HTTP'})`;
    if (listen.kind === 'cgnat')
      options.onNotice?.({
        level: 'warning',
        text: `listening on ${listen.address} as asked: it is in 100.64.0.0/10 but Tailscale does not list it, so other customers of a carrier-grade NAT or VPN may reach it`,
      });
    if (listen.renew && listen.tls) {
      let validTo = listen.tls.validTo;
      const renew = listen.renew;
      // Renewed two weeks before expiry, without dropping connections.
      this.stopRenewals = every(clock, RENEW_CHECK_MS, () => {
        if (!needsRenewal(validTo, new Date(clock.now()))) return;
        void renew().then((tls) => {
          if (!tls)
            return options.onNotice?.({
              level: 'warning',
              text: 'renewing the Tailscale certificate failed; will try again',
            });
          validTo = tls.validTo;
          reach.listener?.setTls(tls);
        });
      });
    }
    return ok(undefined);
  }
}
