import type { DirListing, Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { isPrivatePath } from '@tether/machine';
import type { Dirent } from 'node:fs';
import { opendir, realpath } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';

/** Folders listed in one reply; a bigger folder says `truncated`. */
const MAX_DIRS = 500;

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
 * themselves; with one, its sub-folders, confined to the roots by real path.
 */
export async function listDirs(
  roots: readonly string[],
  path: string | undefined,
  privates: readonly string[] = [],
): Promise<Result<DirListing>> {
  if (path === undefined) {
    const dirs = [];
    for (const root of roots) {
      const real = await realpath(root).catch(() => undefined);
      if (real && !isPrivatePath(real, privates)) dirs.push({ name: real.split(sep).pop() || real, path: real });
    }
    return ok({ path: null, parent: null, dirs, truncated: false });
  }
  const real = await insideRoots(roots, path, privates);
  if (!real) return fail('forbidden', `${path} is not under a folder this host shares`);
  const entries: Dirent[] = [];
  try {
    const dir = await opendir(real);
    // A private folder inside a root is not offered (nor is a link to one: only real folders are).
    for await (const entry of dir)
      if (entry.isDirectory() && !isPrivatePath(join(real, entry.name), privates)) entries.push(entry);
  } catch (error) {
    return fail('not-found', `${path} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  entries.sort(
    (a, b) => Number(a.name.startsWith('.')) - Number(b.name.startsWith('.')) || a.name.localeCompare(b.name),
  );
  const atRoot = (await Promise.all(roots.map((r) => realpath(r).catch(() => '')))).includes(real);
  return ok({
    path: real,
    parent: atRoot ? null : dirname(real),
    dirs: entries.slice(0, MAX_DIRS).map((e) => ({ name: e.name, path: join(real, e.name) })),
    truncated: entries.length > MAX_DIRS,
  });
}
