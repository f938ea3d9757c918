import type { ExecutionContext } from '@tether/machine';
import { createHash } from 'node:crypto';
import { posix } from 'node:path';

/**
 * A folder's own agent configuration as files, read through the session's execution context
 * (confined to the folder by real path, private files left out), so that what a person is asked
 * to trust is what is there, pinned by content. Nothing here is followed out of the folder: a file
 * that is a link out of it cannot be shown, so it cannot be pinned, and the configuration it
 * belongs to is not trusted (`unpinnable`).
 */

/** Files read from one configuration folder at most. */
export const MAX_CONFIG_FILES = 1000;
/** Bytes of one configuration file read at most; a larger one cannot be pinned. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;
/** Folders deep under a configuration folder that are read. */
const MAX_DEPTH = 6;

export interface ConfigFile {
  /** Relative to the folder the configuration belongs to (`.claude/settings.json`). */
  path: string;
  text: string;
  /** SHA-256 of the text, hex. */
  sha256: string;
}

export interface ConfigFiles {
  files: ConfigFile[];
  /** Why some of it could not be read whole (a link out, too large, too many files): it cannot be pinned. */
  unpinnable: string[];
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The file at `path` (relative to `folder`), or nothing when it is absent. */
export async function readConfigFile(context: ExecutionContext, folder: string, path: string, into: ConfigFiles) {
  const read = await context.readFile(folder, path, MAX_CONFIG_FILE_BYTES);
  if (read.ok) {
    into.files.push({ path, text: read.value.text, sha256: sha256(read.value.text) });
    return;
  }
  if (read.error.code === 'not-found') return;
  into.unpinnable.push(`${path}: ${read.error.message}`);
}

/**
 * Every file under `dir` (relative to `folder`, e.g. `.claude`), sorted, with `skip` naming
 * folders left out (a plugin's `node_modules`). Absent: no files.
 */
export async function readConfigTree(
  context: ExecutionContext,
  folder: string,
  dir: string,
  into: ConfigFiles,
  skip: readonly string[] = [],
): Promise<void> {
  const walk = async (rel: string, depth: number): Promise<void> => {
    const listed = await context.listDir(folder, rel, MAX_CONFIG_FILES + 1);
    if (!listed.ok) {
      // An absent configuration folder is none; anything else (a link out of the folder) is unseen.
      const absent = listed.error.code === 'not-found' || listed.error.code === 'not-a-folder';
      if (!(rel === dir && absent)) into.unpinnable.push(`${rel}: ${listed.error.message}`);
      return;
    }
    const entries = [...listed.value.entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = posix.join(rel, entry.name);
      if (into.files.length >= MAX_CONFIG_FILES) {
        into.unpinnable.push(`${dir}: more than ${MAX_CONFIG_FILES} files`);
        return;
      }
      if (entry.type === 'dir') {
        if (skip.includes(entry.name)) continue;
        if (depth >= MAX_DEPTH) into.unpinnable.push(`${path}: more than ${MAX_DEPTH} folders deep`);
        else await walk(path, depth + 1);
      } else if (entry.type === 'file' || entry.type === 'symlink') {
        // A link is read where it leads, inside the folder only: one that leads out is refused.
        await readConfigFile(context, folder, path, into);
      } else into.unpinnable.push(`${path}: not a file or folder`);
    }
  };
  await walk(dir, 0);
}

/** One line naming each file with the start of its digest: what the trust is pinned to, besides what is shown. */
export function pinnedLines(files: readonly ConfigFile[]): string[] {
  return files.map((f) => `  ${f.path}  (sha256 ${f.sha256.slice(0, 16)})`);
}
