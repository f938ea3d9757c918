import { fail, ok } from '@tether/shared-protocol';
import type { Host } from '../host.js';
import { replayThenFollow } from '../store/replay.js';
import { VERSION } from '../version.js';
import type { ControlHandlers } from './control-server.js';

/** Every control-socket method, answered from the host. */
export function controlHandlers(host: Host): ControlHandlers {
  const { sessions, approvals, log } = host;
  const local = { kind: 'local' as const, label: 'this computer' };
  return {
    'host.status': () => {
      const all = sessions.list(true);
      return ok({
        hostId: host.hostId,
        name: host.name,
        version: VERSION,
        pid: process.pid,
        dataDir: host.paths.dir,
        startedAt: host.startedAt,
        defaultModel: host.defaultModel,
        sessions: all.length,
        runningSessions: all.filter((s) => s.status === 'running' || s.status === 'waiting').length,
        pendingApprovals: approvals.pending().length,
        remote: {
          listening: host.remote !== undefined,
          url: host.remote?.url ?? null,
          mode: host.remote?.mode ?? null,
          message: host.remoteMessage,
          connectedDevices: host.remote?.hub.connectedDevices().size ?? 0,
          refused: host.remote?.stats.snapshot() ?? {},
        },
      });
    },
    'sessions.list': (p) => ok({ sessions: sessions.list(p.includeArchived ?? false) }),
    'sessions.create': async (p) => {
      const created = await sessions.create({
        cwd: p.cwd,
        text: p.text,
        ...(p.model !== undefined ? { model: p.model } : {}),
      });
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
    'sessions.send': (p) => sessions.send(p.id, p.text),
    'sessions.interrupt': (p) => sessions.interrupt(p.id),
    'sessions.archive': (p) => sessions.archive(p.id, p.archived ?? true),
    'sessions.autoApprove': (p) => sessions.setAutoApprove(p.id, p.enabled),
    'approvals.list': (p) => ok({ approvals: approvals.pending(p.sessionId) }),
    'approvals.answer': (p) => {
      const answered = approvals.answer(
        p.id,
        {
          decision: p.decision,
          ...(p.note !== undefined ? { note: p.note } : {}),
          ...(p.prefix !== undefined ? { prefix: p.prefix } : {}),
        },
        local,
      );
      return answered.ok ? ok({ approval: answered.value }) : answered;
    },
    'pair.create': () => {
      if (!host.remote) return fail('unavailable', `no phone can reach this host: ${host.remoteMessage}`);
      host.remote.pairing.mint();
      return ok(host.remote.pairLink());
    },
    'pair.requests': () => ok({ requests: host.remote?.pairing.requests() ?? [] }),
    'pair.allow': (p) => {
      if (!host.remote) return fail('not-found', `no pair request ${p.id} is waiting`);
      const allowed = host.remote.pairing.allow(p.id, p.scopes);
      return allowed.ok ? ok({ device: allowed.value }) : allowed;
    },
    'pair.deny': (p) => host.remote?.pairing.deny(p.id) ?? fail('not-found', `no pair request ${p.id} is waiting`),
    'devices.list': () => ok({ devices: host.devices.list().map(({ publicKey: _key, ...info }) => info) }),
    'devices.revoke': (p) => {
      const device = host.devices.get(p.id);
      if (!device) return fail('not-found', `no device ${p.id}`);
      host.devices.revoke(p.id, host.clock.now());
      return ok({ closedConnections: host.remote?.hub.disconnectDevice(p.id) ?? 0 });
    },
  };
}
