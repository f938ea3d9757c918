import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import type { Result } from '@tether/shared-protocol';
import { MAX_MACHINE_ROOTS, fail, ok } from '@tether/shared-protocol';
import { isPrivatePath } from '../private-paths.js';

/**
 * The folders a machine shares, checked when sharing starts: absolute, existing folders, at most
 * MAX_MACHINE_ROOTS of them, and none that is or lies inside a private folder (a credential folder,
 * Tether's own data). Answered as real paths, without duplicates or roots inside other roots.
 */
export async function checkSharedRoots(
  roots: readonly string[],
  privates: readonly string[],
): Promise<Result<string[]>> {
  if (roots.length === 0) return fail('invalid-params', 'share at least one folder (--root DIR)');
  if (roots.length > MAX_MACHINE_ROOTS) {
    return fail('invalid-params', `${roots.length} folders; a machine shares at most ${MAX_MACHINE_ROOTS}`);
  }
  const real: string[] = [];
  for (const root of roots) {
    if (!isAbsolute(root)) return fail('invalid-params', `${root} is not an absolute path`);
    let path: string;
    try {
      path = await realpath(root);
      if (!(await stat(path)).isDirectory()) return fail('invalid-params', `${root} is not a folder`);
    } catch {
      return fail('invalid-params', `${root} does not exist`);
    }
    if (isPrivatePath(path, privates) || isPrivatePath(root, privates)) {
      return fail(
        'forbidden',
        `${root} is a private folder (credentials or Tether's own data) or lies inside one: it is never shared`,
      );
    }
    real.push(path);
  }
  const unique = [...new Set(real)].sort();
  // A root inside another adds nothing: the outer one already shares it.
  return ok(unique.filter((path) => !unique.some((other) => other !== path && rootOf(path, [other]) !== undefined)));
}

/** The shared root `realPath` lies in, if any. */
export function rootOf(realPath: string, roots: readonly string[]): string | undefined {
  return roots.find((root) => realPath === root || realPath.startsWith(root.endsWith(sep) ? root : root + sep));
}
