import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';

/**
 * Folders under the home folder that hold credentials or Tether's own keys and tokens. A host is
 * never given them: a machine refuses to share a root that is, or lies inside, one of them, and
 * hides them inside any root it shares (sharing `~` does not share `~/.ssh`). The host uses the
 * same list for the folders it offers its own sessions. A shell command can still read what the
 * user can: this protects file operations and folders, not a command line (docs/machines.md).
 */
export const PRIVATE_HOME_FOLDERS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.config/gh',
  '.password-store',
  '.config/tether',
  '.local/share/tether',
  '.local/share/tether-machine',
  '.local/state/tether',
];

export interface PrivateFolderOptions {
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** More paths never reachable: a machine's data dir, its token file, a host's data dir. */
  extra?: readonly string[];
}

/**
 * Every private path as an absolute real path (a folder that does not exist yet keeps its
 * lexical path, so creating it later does not make it reachable).
 */
export function privatePaths(options: PrivateFolderOptions = {}): string[] {
  const env = options.env ?? process.env;
  const home = options.home ?? env.HOME ?? homedir();
  const paths = PRIVATE_HOME_FOLDERS.map((folder) => join(home, folder));
  for (const name of ['XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME'] as const) {
    const base = env[name];
    if (base && isAbsolute(base)) paths.push(join(base, 'tether'), join(base, 'tether-machine'));
  }
  for (const name of ['TETHER_DATA_DIR', 'TETHER_MACHINE_DIR'] as const) {
    const dir = env[name];
    if (dir) paths.push(resolve(dir));
  }
  paths.push(...(options.extra ?? []).map((path) => resolve(path)));
  const real = new Set<string>();
  for (const path of paths) {
    real.add(path);
    try {
      real.add(realpathSync(path));
    } catch {
      // Not there (yet): its lexical path stands for it.
    }
  }
  return [...real];
}

/** Whether `realPath` is one of `privates` or lies inside one. */
export function isPrivatePath(realPath: string, privates: readonly string[]): boolean {
  return privates.some((p) => realPath === p || realPath.startsWith(p.endsWith(sep) ? p : p + sep));
}
