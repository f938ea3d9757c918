import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { LocalContext, homeFolder, isPrivatePath, privatePaths } from '@tether/machine';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * What the host keeps from its sessions and from the folder picker, as a machine keeps it from its
 * host (docs/machines.md): credential folders and files, Tether's usual data dirs, and `own`, the
 * paths this host was given on its command line however they were named (its data dir from
 * `--data-dir`, relative or through a link; the config and key files its flags name).
 */
export function hostPrivates(env: NodeJS.ProcessEnv | undefined, own: readonly string[] = []): string[] {
  return privatePaths({ ...(env ? { env } : {}), extra: own });
}

/**
 * The host's own computer as its sessions reach it, keeping `privates` from them. Its home folder
 * is named so that reading a hidden entry there asks first.
 */
export function hostLocalContext(
  env: NodeJS.ProcessEnv | undefined,
  privates: readonly string[] = hostPrivates(env),
): LocalContext {
  const home = homeFolder(env ?? process.env);
  return new LocalContext({ privates, ...(home !== undefined ? { home } : {}) });
}

/**
 * A host's private paths (hostPrivates): its data dir however named, and the files its flags name
 * (`--mcp-config`, `--agents-config`, `--tls-key`). Refused when one of `roots` lies in one of them.
 */
export function ownPrivates(
  options: {
    dataDir: string;
    env?: NodeJS.ProcessEnv;
    mcpConfig?: string;
    agentsConfig?: string;
    remote?: { tlsKey?: string };
  },
  roots: readonly string[],
): Result<string[]> {
  const own = [options.dataDir, options.mcpConfig, options.agentsConfig, options.remote?.tlsKey];
  const privates = hostPrivates(
    options.env,
    own.filter((path) => path !== undefined),
  );
  const inPrivate = privateRoot(roots, privates);
  if (inPrivate === undefined) return ok(privates);
  return fail(
    'invalid-params',
    `the root ${inPrivate} is private (Tether's data dir, its config or credentials): no session may work there; choose another folder`,
  );
}

/** The first of `roots` that is private or lies in a private folder (by real path), if any. */
function privateRoot(roots: readonly string[], privates: readonly string[]): string | undefined {
  return roots.find((root) => {
    let real = resolve(root);
    try {
      real = realpathSync(real);
    } catch {
      // Not there (yet): its lexical path stands for it.
    }
    return isPrivatePath(real, privates);
  });
}
