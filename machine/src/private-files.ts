import type { Stats } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';

/** Entries looked at, at most, in one walk of the private paths (a browser profile is large). */
export const MAX_PRIVATE_ENTRIES = 20_000;

/**
 * Milliseconds by which a file's ctime may read earlier than the wall clock at the same instant
 * (file systems stamp times with a coarse clock): a file changed this close to a walk's start is
 * treated as changed after it.
 */
const CTIME_SLACK_MS = 1000;

/** What identifies a file whatever it is called, how many names it has, and when those last changed. */
export type FileIdentity = Pick<Stats, 'dev' | 'ino' | 'nlink' | 'ctimeMs' | 'isFile'>;

/** A file's identity as one string, the form a search worker is handed. */
export function fileKey(file: Pick<Stats, 'dev' | 'ino'>): string {
  return `${file.dev}:${file.ino}`;
}

interface Walked {
  keys: Set<string>;
  /** Wall-clock ms when the walk began. */
  startedAt: number;
}

/**
 * The private files (privatePaths) under other names. A hard link is the very same file under a
 * name of its own, which no path check sees; its device and inode give it away. Only a file with
 * more than one name can be one, so only such files are looked up, and only such files are
 * indexed, by walking the private paths (never following a symlink; at most MAX_PRIVATE_ENTRIES
 * entries, the credential folders first).
 *
 * Giving a file another name (link, rename) updates its ctime. So a file that changed before the
 * last walk began had all its names then, and the index answers for it; one that changed since
 * (a link to a key made a moment ago) is looked up in a fresh walk. A walk already under way when
 * a lookup starts may have passed a name before it existed, so the lookup waits for one begun
 * after it. Concurrent lookups share a walk.
 */
export class PrivateFiles {
  private walking: Promise<Walked> | undefined;
  private index: Walked | undefined;
  /** Walks made so far (each reads every private path). */
  walks = 0;

  constructor(
    private readonly privates: readonly string[],
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `file` (from fstat of an opened file, or stat) is a private file by another name. */
  async isPrivate(file: FileIdentity): Promise<boolean> {
    // A folder has several names too (its entries' `..`), but can never be a hard link.
    if (!file.isFile() || file.nlink < 2 || this.privates.length === 0) return false;
    const key = fileKey(file);
    const index = this.index;
    if (index?.keys.has(key)) return true;
    if (index && file.ctimeMs < index.startedAt - CTIME_SLACK_MS) return false;
    return (await this.freshWalk()).keys.has(key);
  }

  /** Every private file that has several names, as fileKey strings, from a walk begun now. */
  async keys(): Promise<string[]> {
    return this.privates.length === 0 ? [] : [...(await this.freshWalk()).keys];
  }

  /** A walk begun no earlier than this call. */
  private async freshWalk(): Promise<Walked> {
    const asked = this.now();
    const walked = await this.walk();
    return walked.startedAt >= asked ? walked : this.walk();
  }

  private walk(): Promise<Walked> {
    if (this.walking) return this.walking;
    const startedAt = this.now();
    this.walks++;
    this.walking = linkedFiles(this.privates)
      .then((keys) => (this.index = { keys, startedAt }))
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
