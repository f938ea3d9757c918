import type { ControlMethods, Methods, Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { ControlCaller } from './caller.js';
import { machineFolder } from '../machines/machine-folders.js';
import type { MachineRegistry } from '../machines/machine-registry.js';
import type { MachineDeps } from '../machines/host-machines.js';
import type { Caller } from './caller.js';
import type { Handlers } from './dispatch.js';

type MachineControlMethod = 'tokens.create' | 'tokens.list' | 'tokens.revoke' | 'machines.list' | 'machines.forget';

/** `tether token create`, `tether tokens`, `tether machines`: the person at the host only. */
export function machineControlHandlers(
  deps: MachineDeps,
): Pick<Handlers<ControlMethods, ControlCaller>, MachineControlMethod> {
  const { registry, tokens } = deps;
  return {
    'tokens.create': ({ name }) => {
      const made = tokens.create(name, deps.clock.now());
      return ok({ token: made.token, id: made.record.id, name: made.record.name, hostKey: deps.hostKey });
    },
    'tokens.list': () =>
      ok({
        tokens: tokens.list().map(({ id, name, scope, createdAt, lastUsedAt, revoked }) => ({
          id,
          name,
          scope,
          createdAt,
          lastUsedAt,
          revoked,
        })),
      }),
    'tokens.revoke': ({ id }) => {
      const token = tokens.get(id);
      if (!token) return fail('not-found', `no token ${id}`);
      tokens.revoke(id, deps.clock.now());
      return ok({ droppedLinks: registry.dropToken(id, token.name) });
    },
    'machines.list': () => ok({ machines: registry.details() }),
    'machines.forget': ({ id }) => registry.forget(id),
  };
}

/** The device side: the machines list, and a machine's folders for the app's picker. */
export function machineDeviceHandlers(
  registry: MachineRegistry,
): Pick<Handlers<Methods, Caller>, 'machines.list' | 'machines.listDirs'> {
  return {
    'machines.list': () => ok({ machines: registry.list() }),
    'machines.listDirs': async ({ machine, path }) => {
      const context = registry.context(machine);
      if (!context) return fail('not-found', `no machine named ${machine}`);
      const listed = await context.listDirs(path);
      if (listed.ok) return listed;
      const { code, message } = listed.error;
      return fail(
        code === 'unreachable' ? 'unavailable' : code === 'outside-root' ? 'forbidden' : 'not-found',
        message,
      );
    },
  };
}

/** A session's place and folder: `local` as given, or a folder inside a machine's roots. */
export function placeFolder(
  registry: MachineRegistry | undefined,
  place: string | undefined,
  cwd: string,
): Result<{ place: string; cwd: string } | undefined> {
  if (place === undefined || place === 'local') return ok(undefined);
  if (!registry) return fail('not-found', `no machine named ${place}`);
  const folder = machineFolder(registry, place, cwd);
  return folder.ok ? ok({ place: registry.byName(place)!.name, cwd: folder.value }) : folder;
}
