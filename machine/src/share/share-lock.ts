import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import type { Result } from '@tether/shared-protocol';
import { fail, ok, parseJson, secureRandom, toBase64Url } from '@tether/shared-protocol';

/**
 * One share process per machine id: two would keep replacing each other's link on the host. The
 * lock is a file created exclusively, holding its holder's pid and a per-process nonce. A lock
 * whose pid is gone is stale: it is moved aside (an atomic rename, so two processes cannot both
 * take it over) and taken again. Only the holder, recognised by its nonce, removes it.
 */
export interface ShareLock {
  readonly pid: number;
  release(): void;
}

export interface LockHolder {
  pid: number;
  nonce: string;
  since: number;
}

/** Whether a process with this pid exists (EPERM: it exists, but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLockHolder(path: string): LockHolder | undefined {
  try {
    const json = parseJson(readFileSync(path, 'utf8'))?.value as Partial<LockHolder> | undefined;
    if (typeof json?.pid !== 'number' || typeof json.nonce !== 'string') return undefined;
    return { pid: json.pid, nonce: json.nonce, since: typeof json.since === 'number' ? json.since : 0 };
  } catch {
    return undefined;
  }
}

export function acquireShareLock(path: string, now: number, alive = processAlive): Result<ShareLock> {
  const nonce = toBase64Url(secureRandom(12));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, nonce, since: now }));
      } finally {
        closeSync(fd);
      }
      return ok({
        pid: process.pid,
        release: () => {
          if (readLockHolder(path)?.nonce === nonce) {
            try {
              unlinkSync(path);
            } catch {
              // Gone already.
            }
          }
        },
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        return fail(
          'io',
          `cannot take the share lock ${path}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    const holder = readLockHolder(path);
    if (holder && alive(holder.pid)) {
      return fail(
        'conflict',
        `another share process (pid ${holder.pid}) is already serving this machine; stop it first`,
      );
    }
    // Stale (its holder died, or the file is damaged): moved aside atomically, then taken.
    try {
      renameSync(path, `${path}.stale-${nonce}`);
      unlinkSync(`${path}.stale-${nonce}`);
    } catch {
      // Another process moved it first; try again to create it.
    }
  }
  return fail('conflict', 'the share lock is being taken by another process at the same time');
}
