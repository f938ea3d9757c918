import type { Stats } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Milliseconds by which a file's ctime may read earlier than the wall clock at the same instant
 * (file systems stamp times with a coarse clock): a file changed this close to a walk's start is
 * treated as changed after it.
 */
export const CTIME_SLACK_MS = 1000;

/**
 * Milliseconds a lookup waits for a walk of the private paths that can answer it; past that the
 * file counts as unknown, and is refused (never read). Under the heartbeat of a machine call, so a
 * refusal comes back in time; a walk of a large profile on a loaded machine may take longer, and
 * the next lookup then finds its index.
 */
export const IDENTIFY_WAIT_MS = 2000;

/** Entries whose lstat a walk has in flight at once, in one folder. */
const LSTAT_BATCH = 32;

/** What identifies a file whatever it is called, how many names it has, and when those last changed. */
export type FileIdentity = Pick<Stats, 'dev' | 'ino' | 'nlink' | 'ctimeMs' | 'isFile'>;

/**
 * What a file is, as far as other names go: `ordinary`, `private` (a private file under another
 * name), or `unknown` (it got a name since the private paths were last walked, and no walk has
 * answered yet): refuse it like a private one.
 */
export type Identity = 'ordinary' | 'private' | 'unknown';

/** A file's identity as one string, the form a search worker is handed. */
export function fileKey(file: Pick<Stats, 'dev' | 'ino'>): string {
  return `${file.dev}:${file.ino}`;
}

/** The private files with several names, from one whole walk of the private paths. */
export interface PrivateIndex {
  keys: ReadonlySet<string>;
  /** Wall-clock ms when the walk began: a file whose names changed before then is in it if private. */
  startedAt: number;
}

/**
 * The private files (privatePaths) under other names. A hard link is the very same file under a
 * name of its own, which no path check sees; its device and inode give it away. Only a file with
 * more than one name can be one, so only such files are looked up, and only such files are
 * indexed, by walking every private path to its end (never following a symlink). No count of
 * entries ends a walk: a budget is something a large browser profile, or anyone able to add
 * files to a private folder, could fill before the file that matters.
 *
 * A lookup never walks: it answers from the index. Giving a file another name (link, rename)
 * updates its ctime, so a file that changed before the last walk began had all its names then and
 * the index answers for it. One that changed since (a link to a key made a moment ago) starts a
 * walk and waits for it at most IDENTIFY_WAIT_MS; still unanswered, it is `unknown`, and every
 * caller refuses it. So an answer is never wrong, only, rarely, late. A walk already under way
 * when a lookup starts may have passed a name before it existed, so the lookup waits for one begun
 * after it. Walks are shared.
 */
export class PrivateFiles {
  private walking: { startedAt: number; done: Promise<PrivateIndex> } | undefined;
  private next: Promise<PrivateIndex> | undefined;
  private index: PrivateIndex | undefined;
  /** Walks made so far (each reads every private path). */
  walks = 0;

  constructor(
    private readonly privates: readonly string[],
    private readonly now: () => number = Date.now,
    private readonly waitMs = IDENTIFY_WAIT_MS,
  ) {}

  /** What `file` (from fstat of an opened file, or lstat) is: see Identity. */
  async identify(file: FileIdentity): Promise<Identity> {
    // A folder has several names too (its entries' `..`), but can never be a hard link.
    if (!file.isFile() || file.nlink < 2 || this.privates.length === 0) return 'ordinary';
    const known = this.answer(this.index, file);
    if (known !== 'unknown') return known;
    // A walk begun after this lookup saw every name the file had when it was looked at.
    const fresh = await within(this.refresh(), this.waitMs);
    if (!fresh) return 'unknown';
    return fresh.keys.has(fileKey(file)) ? 'private' : 'ordinary';
  }

  /** Whether `file` must be refused as private: a private file by another name, or unknown. */
  async isPrivate(file: FileIdentity): Promise<boolean> {
    return (await this.identify(file)) !== 'ordinary';
  }

  /**
   * The index as it stands, for a search to check many files by (PrivateIndex: a file with several
   * names changed since `startedAt` is unknown to it); walks first, within the wait, when there is
   * none yet. Undefined when there is no index in time: the search then reads no such file.
   */
  async current(): Promise<PrivateIndex | undefined> {
    if (this.privates.length === 0) return { keys: new Set(), startedAt: Number.POSITIVE_INFINITY };
    return this.index ?? (await within(this.refresh(), this.waitMs));
  }

  /** A walk begun no earlier than this call (shared with any other that asks meanwhile). */
  refresh(): Promise<PrivateIndex> {
    const asked = this.now();
    if (this.walking && this.walking.startedAt >= asked) return this.walking.done;
    if (this.walking) {
      this.next ??= this.walking.done.then(() => {
        this.next = undefined;
        return this.walk();
      });
      return this.next;
    }
    return this.walk();
  }

  private answer(index: PrivateIndex | undefined, file: FileIdentity): Identity {
    if (!index) return 'unknown';
    if (index.keys.has(fileKey(file))) return 'private';
    return file.ctimeMs < index.startedAt - CTIME_SLACK_MS ? 'ordinary' : 'unknown';
  }

  private walk(): Promise<PrivateIndex> {
    const startedAt = this.now();
    this.walks++;
    const done = linkedFiles(this.privates)
      .then((keys) => {
        const walked = { keys, startedAt };
        if (!this.index || this.index.startedAt <= startedAt) this.index = walked;
        return walked;
      })
      .finally(() => {
        if (this.walking?.done === done) this.walking = undefined;
      });
    this.walking = { startedAt, done };
    return done;
  }
}

/** `promise`'s value if it settles within `ms`, else undefined (it goes on, and is shared). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The files with several names in and under `paths`, by fileKey: every entry, however many. The
 * files of one folder are looked at LSTAT_BATCH at a time, its folders one after another.
 */
async function linkedFiles(paths: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const note = (info: Stats | undefined) => {
    if (info?.isFile() && info.nlink > 1) found.add(fileKey(info));
  };
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isDirectory()) return note(info);
    const dir = await opendir(path).catch(() => undefined);
    if (!dir) return;
    const folders: string[] = [];
    let batch: Promise<void>[] = [];
    try {
      for await (const entry of dir) {
        if (entry.isDirectory()) folders.push(entry.name);
        else if (entry.isFile()) batch.push(lstat(join(path, entry.name)).then(note, () => undefined));
        if (batch.length >= LSTAT_BATCH) {
          await Promise.all(batch);
          batch = [];
        }
      }
    } catch {
      // Gone or unreadable half-way: what was seen stands.
    }
    await Promise.all(batch);
    for (const name of folders) await visit(join(path, name));
  };
  for (const path of paths) await visit(path);
  return found;
}
