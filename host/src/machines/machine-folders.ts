import { isAbsolute, normalize, sep } from 'node:path';
import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { MachineRegistry } from './machine-registry.js';

/**
 * The first check of a session's folder on a machine, at creation: absolute and, read as written,
 * inside one of the roots the machine shares (the machine then checks it again by real path, where
 * the folder is). Refused with the roots named, so the person sees where a session may go.
 */
export function machineFolder(registry: MachineRegistry, machine: string, cwd: string): Result<string> {
  const info = registry.byName(machine);
  if (!info) return fail('not-found', `no machine named ${machine}; see tether machines`);
  if (!isAbsolute(cwd)) return fail('invalid-params', `${cwd} is not an absolute path on ${info.name}`);
  const path = normalize(cwd).replace(/(.)\/+$/, '$1');
  const inside = info.roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
  if (!inside) {
    return fail('forbidden', `${path} is outside the folders ${info.name} shares: ${info.roots.join(', ')}`);
  }
  return ok(path);
}
