import type { DirListing, Result } from '@tether/shared-protocol';
import { fail } from '@tether/shared-protocol';
import { LocalContext, isPrivatePath } from '@tether/machine';
import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';

/**
 * Real path of `path` when it is one of the roots or lies under one, and is not a private folder
 * (credentials, Tether's own data: `privatePaths` from the execution package); otherwise undefined.
 */
export async function insideRoots(
  roots: readonly string[],
  path: string,
  privates: readonly string[] = [],
): Promise<string | undefined> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return undefined;
  }
  if (isPrivatePath(real, privates)) return undefined;
  for (const root of roots) {
    const rootReal = await realpath(root).catch(() => undefined);
    if (rootReal && (real === rootReal || real.startsWith(rootReal.endsWith(sep) ? rootReal : rootReal + sep)))
      return real;
  }
  return undefined;
}

/**
 * `fs.listDirs`: the folders a device may pick for a session. Without a path, the roots
 * themselves; with one, its sub-folders, confined to the roots by real path. The listing is the
 * execution package's (LocalContext.listDirs, as a machine lists its own); a path it refuses is
 * `forbidden` to a device, one it cannot list `not-found`.
 */
export async function listDirs(
  roots: readonly string[],
  path: string | undefined,
  privates: readonly string[] = [],
): Promise<Result<DirListing>> {
  const listed = await new LocalContext({ roots, privates }).listDirs(path);
  if (listed.ok) return listed;
  const { code, message } = listed.error;
  if (code === 'outside-root' || code === 'not-found') {
    return fail('forbidden', `${path} is not under a folder this host shares`);
  }
  return fail('not-found', `${path} cannot be read: ${message}`);
}
