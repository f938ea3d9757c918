import type { KeepAwakeStatus } from '@tether/shared-protocol';
import { secureRandom } from '@tether/shared-protocol';
import { chooseSecretbox } from '../crypto/native-secretbox.js';
import { chooseX25519 } from '../crypto/node-x25519.js';
import { DeviceGateway } from '../gateway/device-gateway.js';
import { OneShotHorizon } from '../gateway/one-shot-horizon.js';
import { newId } from '../ids.js';
import type { PushService } from '../push/push-service.js';
import type { HostRelay } from '../relay/host-relay.js';
import { relayHandlers } from '../relay/relay-handlers.js';
import type { Caller } from '../rpc/caller.js';
import { controlHandlers } from '../rpc/control-handlers.js';
import { deviceHandlers } from '../rpc/device-handlers.js';
import { gitHandlers } from '../rpc/git-handlers.js';
import type { ShareHandlerDeps } from '../share/share-handlers.js';
import { shareHandlers } from '../share/share-handlers.js';
import { ShareLinks } from '../share/share-links.js';
import { ShareStore } from '../store/share-store.js';
import { VERSION } from '../version.js';
import type { HostCore } from './build-core.js';
import type { Teardown } from './closers.js';
import type { HostChecks } from './host-checks.js';
import type { HostOptions } from './host-options.js';
import type { HostReach } from './host-reach.js';

/** Parts built after the gateway, which its handlers reach only once they exist. */
export interface LaterParts {
  relay: () => HostRelay | undefined;
  reach: () => HostReach;
  keepAwake: () => KeepAwakeStatus;
}

/**
 * The device side: share links, and the gateway with the handler tables it dispatches to. Share
 * links' viewers connect to the gateway too, and a new link's URL names where phones reach the host.
 */
export function buildGateway(
  options: HostOptions,
  checks: HostChecks,
  core: HostCore,
  push: PushService,
  later: LaterParts,
  scope: Teardown,
) {
  const { identity, name, clock, tickets } = checks;
  const { db, devices, approvals, sessionStore } = core;
  const shares = new ShareLinks({
    store: new ShareStore(db),
    sessionExists: (id) => sessionStore.get(id) !== undefined,
    deviceIdTaken: (id) => devices.get(id) !== undefined,
    clock,
    random: secureRandom,
  });
  scope.defer('shares', () => shares.close());
  const shareDeps = (viewers: (id: string) => number): ShareHandlerDeps => ({
    links: shares,
    hostBoxPublicKey: identity.box.publicKey,
    place: () => later.reach().sharePlace(),
    viewers,
  });
  const gateway = new DeviceGateway({
    shares,
    identity,
    devices,
    oneShotHorizon: new OneShotHorizon(db),
    approvableUnopened: (id) => {
      const approval = approvals.get(id);
      return approval === undefined || push.lockScreen(approval).lockScreen === 'approve';
    },
    x25519: chooseX25519(),
    secretbox: chooseSecretbox(),
    log: core.log,
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
      ...relayHandlers(() => tickets?.tickets, later.relay),
      ...deviceHandlers({
        hostId: identity.hostId,
        hostName: name,
        version: VERSION,
        sessions: core.sessions,
        approvals,
        devices,
        log: core.log,
        disconnectDevice: (id) => self.hub.disconnectDevice(id),
        roots: checks.roots,
        // The same list a machine keeps from its host: credential folders and Tether's own data.
        privates: checks.privates,
        models: core.models,
        agents: core.catalog,
        agentSessions: core.agentSessions,
        features: () => ['machines', 'terminals', 'push', 'git', ...(tickets ? ['relay'] : [])],
        relays: () => tickets?.urls,
        clock,
        machines: core.machines.registry,
        terminals: core.terminals,
        blobs: { store: core.blobs, uploads: core.uploads },
        steering: core.steering,
        commands: core.commands,
        keepAwake: later.keepAwake,
        worktrees: core.worktrees,
      }),
      ...gitHandlers(core.git),
      ...push.handlers(),
      ...shareHandlers(
        shareDeps((id) => self.hub.viewerCount(id)),
        (caller: Caller) => caller.device.label,
      ),
    }),
  });
  // Closed before the share links: it says goodbye to every device and viewer still connected.
  scope.defer('gateway', () => gateway.close());
  return { shares, shareDeps, gateway };
}

/** The control socket's handler table: `tether` commands on this computer. */
export function buildControlHandlers(
  checks: HostChecks,
  core: HostCore,
  push: PushService,
  device: ReturnType<typeof buildGateway>,
  later: Omit<LaterParts, 'relay'>,
) {
  const { identity, name, paths, startedAt, defaultModel, clock } = checks;
  const { gateway, shareDeps } = device;
  return controlHandlers({
    facts: {
      hostId: identity.hostId,
      name,
      version: VERSION,
      dataDir: paths.dir,
      startedAt,
      defaultModel,
    },
    sessions: core.sessions,
    approvals: core.approvals,
    log: core.log,
    devices: core.devices,
    gateway,
    reach: () => later.reach().reach(),
    pairLink: () => later.reach().pairLink(),
    push: () => push.status(),
    keepAwake: later.keepAwake,
    agents: core.catalog,
    agentSessions: core.agentSessions,
    clock,
    machines: core.machines.handlerDeps(),
    terminals: core.terminals,
    run: (params) => core.wrapped.start(params),
    blobs: { store: core.blobs, uploads: core.uploads },
    shares: shareHandlers(
      shareDeps((id) => gateway.hub.viewerCount(id)),
      () => 'this computer',
    ),
    trust: { trust: core.trust, local: core.local },
    steering: core.steering,
    commands: core.commands,
    git: core.git,
    worktrees: core.worktrees,
  });
}
