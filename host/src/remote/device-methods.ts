import type { DeviceInfo, HostInfo, Result } from '@tether/shared-protocol';
import { PROTOCOL_VERSION, fail, ok } from '@tether/shared-protocol';
import type { ApprovalBroker } from '../agent/approval-broker.js';
import type { SessionManager } from '../agent/session-manager.js';
import type { DeviceStore } from '../store/device-store.js';
import type { DeviceHub } from './device-hub.js';
import type { Caller, MethodHandlers } from './dispatch.js';
import { insideRoots, listDirs } from './folder-browser.js';

export interface DeviceMethodDeps {
  hostId: string;
  hostName: string;
  version: string;
  sessions: SessionManager;
  approvals: ApprovalBroker;
  devices: DeviceStore;
  hub: DeviceHub;
  /** Folders devices may start sessions in (`--root`). */
  roots: readonly string[];
  /** Models a device may choose; the first is the default. */
  models: readonly string[];
  clock: { now(): number };
}

function deviceInfo(device: DeviceInfo & { publicKey?: Uint8Array }): DeviceInfo {
  const { publicKey: _key, ...info } = device;
  return info;
}

/**
 * What a paired device may do, as handlers behind `dispatch` (which has already checked the
 * method, the scope and the params). Each is a view of the same session manager and approval
 * broker the local CLI uses.
 */
export function deviceMethods(deps: DeviceMethodDeps): MethodHandlers {
  const p = <T>(params: unknown) => params as T;
  const byDevice = (caller: Caller) => ({ kind: 'device' as const, id: caller.device.id, label: caller.device.label });
  return {
    'host.info': (_params, caller): Result<HostInfo> =>
      ok({
        hostId: deps.hostId,
        name: deps.hostName,
        version: deps.version,
        protocolVersion: PROTOCOL_VERSION,
        deviceId: caller.device.id,
        scopes: caller.device.scopes,
        features: [],
        models: [...deps.models],
        defaultModel: deps.models[0]!,
        roots: [...deps.roots],
      }),
    'fs.listDirs': (params) => listDirs(deps.roots, p<{ path?: string }>(params).path),

    'sessions.list': (params) =>
      ok({ sessions: deps.sessions.list(p<{ includeArchived?: boolean }>(params).includeArchived ?? false) }),
    'sessions.create': async (params) => {
      const { cwd, text, model, place } = p<{ cwd: string; text: string; model?: string; place?: string }>(params);
      if (place !== undefined && place !== 'local') return fail('not-found', `no machine named ${place}`);
      if (model !== undefined && !deps.models.includes(model)) {
        return fail(
          'invalid-params',
          `model ${model} is not offered by this host; choose one of ${deps.models.join(', ')}`,
        );
      }
      const folder = await insideRoots(deps.roots, cwd);
      if (!folder) return fail('forbidden', `${cwd} is not under a folder this host shares with devices`);
      const created = await deps.sessions.create({ cwd: folder, text, ...(model !== undefined ? { model } : {}) });
      return created.ok ? ok({ session: created.value }) : created;
    },
    'sessions.watch': (params, caller) => {
      const { id, after } = p<{ id: string; after: number }>(params);
      if (!caller.connection) return fail('unsupported', 'watching needs a connection, not a one-shot call');
      const session = deps.sessions.get(id);
      if (!session) return fail('not-found', `no session ${id}`);
      const watched = caller.connection.watch(id, after);
      return watched.ok ? ok({ session }) : watched;
    },
    'sessions.unwatch': (params, caller) => {
      caller.connection?.unwatch(p<{ id: string }>(params).id);
      return ok({});
    },
    'sessions.send': (params) => {
      const { id, text } = p<{ id: string; text: string }>(params);
      return deps.sessions.send(id, text);
    },
    'sessions.interrupt': (params) => deps.sessions.interrupt(p<{ id: string }>(params).id),
    'sessions.archive': (params) => {
      const { id, archived } = p<{ id: string; archived?: boolean }>(params);
      return deps.sessions.archive(id, archived ?? true);
    },

    'approvals.list': (params) =>
      ok({ approvals: deps.approvals.pending(p<{ sessionId?: string }>(params).sessionId) }),
    'approvals.answer': (params, caller) => {
      const { id, decision, note, prefix } = p<{
        id: string;
        decision: 'allow-once' | 'allow-session' | 'deny';
        note?: string;
        prefix?: string;
      }>(params);
      const answered = deps.approvals.answer(
        id,
        { decision, ...(note !== undefined ? { note } : {}), ...(prefix !== undefined ? { prefix } : {}) },
        byDevice(caller),
      );
      return answered.ok ? ok({ approval: answered.value }) : answered;
    },

    'devices.list': () => ok({ devices: deps.devices.list().map(deviceInfo) }),
    'devices.revoke': (params, caller) => {
      const { id } = p<{ id: string }>(params);
      if (id !== caller.device.id && !caller.device.scopes.includes('admin')) {
        return fail('forbidden', 'revoking another device needs the admin scope');
      }
      if (!deps.devices.get(id)) return fail('not-found', `no device ${id}`);
      deps.devices.revoke(id, deps.clock.now());
      // Its connections (this one too, when it revokes itself) close after the answer goes out.
      setTimeout(() => deps.hub.disconnectDevice(id), 0);
      return ok({});
    },
  };
}
