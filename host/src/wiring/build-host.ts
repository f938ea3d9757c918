import type { Clock, HostIdentity, Result } from '@tether/shared-protocol';
import { ok, secureRandom } from '@tether/shared-protocol';
import type { UploadManager } from '../blobs/upload-manager.js';
import type { DataPaths } from '../config/data-dir.js';
import type { DeviceGateway } from '../gateway/device-gateway.js';
import type { HostMachines } from '../machines/host-machines.js';
import type { McpManager } from '../mcp/mcp-manager.js';
import type { PluginRuntime } from '../plugins/plugin-runtime.js';
import { KeepAwake } from '../power/keep-awake.js';
import { inhibitorFor, spawnInhibitor } from '../power/sleep-inhibitor.js';
import { PushService } from '../push/push-service.js';
import { HostRelay } from '../relay/host-relay.js';
import type { controlHandlers } from '../rpc/control-handlers.js';
import type { AcpBackend } from '../sessions/acp/acp-backend.js';
import type { AgentCatalog } from '../sessions/acp/agent-catalog.js';
import type { AgentSessions } from '../sessions/acp/agent-sessions.js';
import type { ApprovalBroker } from '../sessions/approval-broker.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { SessionSteering } from '../sessions/session-steering.js';
import type { FolderTrust } from '../sessions/trust/folder-trust.js';
import type { TypedCommands } from '../sessions/typed-commands.js';
import type { WrappedPrograms } from '../sessions/wrapped/wrapped-programs.js';
import type { ShareLinks } from '../share/share-links.js';
import type { BlobStore } from '../store/blob-store.js';
import type { Db } from '../store/database.js';
import type { DeviceStore } from '../store/device-store.js';
import type { EventLog } from '../store/event-log.js';
import type { SessionStore } from '../store/session-store.js';
import type { TerminalManager } from '../terminals/terminal-manager.js';
import { buildCore } from './build-core.js';
import { building, Teardown } from './closers.js';
import { buildControlHandlers, buildGateway } from './build-surfaces.js';
import { checkHost } from './host-checks.js';
import type { HostChecks } from './host-checks.js';
import type { HostOptions } from './host-options.js';
import { HostReach } from './host-reach.js';

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
  /**
   * What closes every part above, in reverse of the order they were opened; `control` and
   * `transports` are its places for what `Host.start` opens (see `buildCore`).
   */
  readonly closing: { readonly all: Teardown; readonly control: Teardown; readonly transports: Teardown };
}

/**
 * Builds a host's parts in dependency order: what is checked first (data dir, identity, model,
 * config files, relay URL; `checkHost`), then the store, the MCP servers, machines and terminals,
 * the session back-ends and their core (`buildCore`), push, the device gateway with its handler
 * tables (`buildGateway`), the relay link and the control handlers. No part is handed another
 * before it exists: where a lower part reports upwards (a machine's status, an MCP failure) it is
 * built with a `Signal` the upper part subscribes to once made, and the gateway's handlers reach
 * the parts made after it through functions. Starts nothing that listens: `Host.start` does that.
 *
 * Each part's closer is registered with one `Teardown` as the part is made; if a later part cannot
 * be built, what was made so far is closed, newest first.
 */
export async function buildHost(options: HostOptions): Promise<Result<HostParts>> {
  const checked = checkHost(options);
  if (!checked.ok) return checked;
  const scope = new Teardown(options.onPartClosed);
  return building(scope, () => buildParts(options, checked.value, scope));
}

async function buildParts(options: HostOptions, checks: HostChecks, scope: Teardown): Promise<Result<HostParts>> {
  const { clock, name, identity, tickets } = checks;
  const core = await buildCore(options, checks, scope);
  const { db, log, sessionStore, terminals, machines } = core;

  const push = PushService.start({
    hostId: identity.hostId,
    hostName: name,
    db,
    vapidPath: checks.paths.vapidKeys,
    configPath: checks.paths.notificationsConfig,
    deviceScopes: (id) => {
      const device = core.devices.get(id);
      return device && !device.revoked ? device.scopes : undefined;
    },
    sessionTitle: (id) => sessionStore.get(id)?.title,
    sessionNotify: (id) => sessionStore.get(id)?.notify,
    clock,
    ...options.push,
  });
  if (!push.ok) return push;
  scope.defer('push', () => push.value.close());

  let relay: HostRelay | undefined;
  const later = {
    relay: () => relay,
    reach: () => reach,
    keepAwake: () => keepAwake.status(),
  };
  const device = buildGateway(options, checks, core, push.value, later, scope);
  const { gateway } = device;
  // Built with the core but closed before the gateway, so registered here: a terminal's end
  // reaches the device attached to it (and a `tether run` session is recorded as interrupted)
  // while the device is still connected.
  scope.defer('terminals', () => terminals.closeAll());
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
  scope.defer('keep-awake', () => keepAwake.stop());
  const unsubscribers = [
    // A run that starts is held for at once, and the last one to end let go at once; a terminal
    // attached or detached is seen at the next look.
    log.subscribe('keep-awake', (event) => {
      if (event.type === 'session.updated') keepAwake.sessionStatus(event.session.status);
    }),
    log.subscribe('devices', (event) => gateway.publish(event)),
    log.subscribe('push', (event) => push.value.onEvent(event)),
    core.hostEvents.on((event) => gateway.publish(event)),
  ];
  // Registered last, so closed first: what the parts record as they close goes to no device or push.
  scope.defer('subscriptions', () => {
    for (const stop of unsubscribers) stop();
  });

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
    // The URL was checked above, so this cannot fail; if it does, nothing has started yet. Its
    // closer is registered when `Host.start` starts it, so a link never started is never stopped.
    if (!made.ok) return made;
    relay = made.value;
  }
  const reach = new HostReach(gateway.pairing, relay, identity.sign.publicKey);
  if (relay && !options.remote)
    reach.message = 'listening on no network address: phones reach this host through the relay';

  return ok({
    name,
    startedAt: checks.startedAt,
    clock,
    identity,
    paths: checks.paths,
    defaultModel: checks.defaultModel,
    db,
    log,
    sessionStore,
    devices: core.devices,
    approvals: core.approvals,
    mcp: core.mcp,
    plugins: core.plugins,
    machines,
    terminals,
    wrapped: core.wrapped,
    sessions: core.sessions,
    trust: core.trust,
    steering: core.steering,
    commands: core.commands,
    blobs: core.blobs,
    uploads: core.uploads,
    agents: { backend: core.acp, catalog: core.catalog, sessions: core.agentSessions },
    push: push.value,
    gateway,
    shares: device.shares,
    relay,
    reach,
    keepAwake,
    controlHandlers: buildControlHandlers(checks, core, push.value, device, later),
    closing: { all: scope, control: core.controlScope, transports: core.transportScope },
  });
}
