import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ExecError, FsErrorCode, Result } from '@tether/shared-protocol';
import { execFail } from '@tether/shared-protocol';

/**
 * Resolves `requested` (relative to `root`, or absolute) to a real path that must lie inside the
 * real path of `root`. `..`, absolute paths and symlinks that lead out are refused, and so is a
 * dangling symlink (writing through it could create a file anywhere). The path itself need not
 * exist: its deepest existing ancestor is resolved and the rest appended.
 */
export async function resolveInside(root: string, requested: string): Promise<Result<string, ExecError<FsErrorCode>>> {
  let rootReal: string;
  try {
    rootReal = await realpath(root);
  } catch {
    return execFail('not-found', `the session folder ${root} does not exist`);
  }
  if (requested.includes('\0')) return execFail('outside-root', 'path contains a NUL character');
  const target = isAbsolute(requested) ? resolve(requested) : resolve(rootReal, requested);
  const rest: string[] = [];
  let existing = target;
  let real: string | undefined;
  for (;;) {
    try {
      real = await realpath(existing);
      break;
    } catch {
      try {
        await lstat(existing);
        return execFail('outside-root', `${requested} is a symlink to something that does not exist`);
      } catch {
        // Not there at all: look one level up.
      }
      const parent = dirname(existing);
      if (parent === existing) return execFail('not-found', `${requested} cannot be resolved`);
      rest.unshift(basename(existing));
      existing = parent;
    }
  }
  const full = rest.length > 0 ? join(real, ...rest) : real;
  // The filesystem's root ends in the separator already: every absolute path is inside it.
  const prefix = rootReal.endsWith(sep) ? rootReal : rootReal + sep;
  if (full !== rootReal && !full.startsWith(prefix)) {
    return execFail('outside-root', `${requested} is outside the session folder ${rootReal}`);
  }
  return { ok: true, value: full };
}

/** `path` relative to `root` for display; `.` for the root itself. */
export function displayPath(root: string, path: string): string {
  return relative(root, path) || '.';
}
