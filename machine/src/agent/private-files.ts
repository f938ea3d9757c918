import type { Stats } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';

/** Entries looked at, at most, in one walk of the private paths (a browser profile is large). */
export const MAX_PRIVATE_ENTRIES = 20_000;

/** What identifies a file whatever it is called: its device and inode, and how many names it has. */
export type FileIdentity = Pick<Stats, 'dev' | 'ino' | 'nlink' | 'isFile'>;

/** A file's identity as one string, the form a search worker is handed. */
export function fileKey(file: Pick<Stats, 'dev' | 'ino'>): string {
  return `${file.dev}:${file.ino}`;
}

/**
 * The private files (privatePaths) under other names. A hard link is the very same file under a
 * name of its own, which no path check sees; its device and inode give it away. Only a file with
 * more than one name can be one, so only such files are looked up, and only such files are
 * indexed. The index is built by walking the private paths (never following a symlink) when a
 * lookup misses, so a link to a key made a moment ago is caught as well; lookups at the same time
 * share one walk. A walk stops after MAX_PRIVATE_ENTRIES entries, the credential folders first.
 */
export class PrivateFiles {
  private walking: Promise<Set<string>> | undefined;
  private known = new Set<string>();

  constructor(private readonly privates: readonly string[]) {}

  /** Whether `file` (from fstat of an opened file, or stat) is a private file by another name. */
  async isPrivate(file: FileIdentity): Promise<boolean> {
    // A folder has several names too (its entries' `..`), but can never be a hard link.
    if (!file.isFile() || file.nlink < 2 || this.privates.length === 0) return false;
    const key = fileKey(file);
    return this.known.has(key) || (await this.walk()).has(key);
  }

  /** Every private file that has several names, as fileKey strings, walked now. */
  async keys(): Promise<string[]> {
    return this.privates.length === 0 ? [] : [...(await this.walk())];
  }

  private walk(): Promise<Set<string>> {
    this.walking ??= linkedFiles(this.privates)
      .then((found) => (this.known = found))
      .finally(() => (this.walking = undefined));
    return this.walking;
  }
}

/** The files with several names in and under `paths`, by fileKey. */
async function linkedFiles(paths: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  let budget = MAX_PRIVATE_ENTRIES;
  const visit = async (path: string): Promise<void> => {
    if (budget-- <= 0) return;
    const info = await lstat(path).catch(() => undefined);
    if (!info) return;
    if (info.isFile()) {
      if (info.nlink > 1) found.add(fileKey(info));
      return;
    }
    if (!info.isDirectory()) return;
    const dir = await opendir(path).catch(() => undefined);
    if (!dir) return;
    try {
      for await (const entry of dir) {
        if (budget <= 0) break;
        if (entry.isFile() || entry.isDirectory()) await visit(join(path, entry.name));
        else budget--;
      }
    } catch {
      // Gone or unreadable half-way: what was seen stands.
    }
  };
  for (const path of paths) await visit(path);
  return found;
}
