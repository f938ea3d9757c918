import { LocalContext, homeFolder, privatePaths } from '@tether/machine';

/**
 * The host's own computer as its sessions reach it. It keeps from them what a machine keeps from
 * its host (docs/machines.md): credential folders and files and Tether's usual data dirs. A data
 * dir named with --data-dir is not added: a person may deliberately offer it as a root (the
 * browser tests do). Its home folder is named so that reading a hidden entry there asks first.
 */
export function hostLocalContext(env: NodeJS.ProcessEnv | undefined): LocalContext {
  const home = homeFolder(env ?? process.env);
  return new LocalContext({
    privates: privatePaths(env ? { env } : {}),
    ...(home !== undefined ? { home } : {}),
  });
}
