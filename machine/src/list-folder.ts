import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DirEntryInfo, DirListing } from './execution-context.js';
import type { PrivateFiles } from './private-files.js';
import { isPrivatePath } from './private-paths.js';

/**
 * The entries of the folder `dir` (a confined real path), at most `maxEntries`, folders first.
 * Private entries are left out as if absent: a private path by name, and a file that is a private
 * file under another name (a hard link). A symlink is listed as one, never followed. Throws the
 * file system's error for the caller to map.
 */
export async function listFolder(
  dir: string,
  maxEntries: number,
  privates: readonly string[],
  privateFiles: PrivateFiles,
): Promise<DirListing> {
  const entries: DirEntryInfo[] = [];
  let truncated = false;
  for await (const entry of await opendir(dir)) {
    const path = join(dir, entry.name);
    if (isPrivatePath(path, privates)) continue;
    const type = entry.isDirectory() ? 'dir' : entry.isFile() ? 'file' : entry.isSymbolicLink() ? 'symlink' : 'other';
    let size = 0;
    if (type === 'file') {
      const info = await lstat(path).catch(() => undefined);
      if (info && (await privateFiles.isPrivate(info))) continue;
      size = info?.size ?? 0;
    }
    if (entries.length >= maxEntries) {
      truncated = true;
      break;
    }
    entries.push({ name: entry.name, type, size });
  }
  entries.sort((a, b) =>
    (a.type === 'dir') === (b.type === 'dir') ? a.name.localeCompare(b.name) : a.type === 'dir' ? -1 : 1,
  );
  return { entries, truncated };
}
