import type { ControlMethods, TrustConfig } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { ExecutionContext } from '@tether/machine';
import type { FolderConfig } from '../sessions/trust/folder-config.js';
import {
  FAMILY_TITLES,
  fingerprint,
  hasConfig,
  TRUST_FAMILIES,
  trustAction,
  untrustable,
} from '../sessions/trust/folder-config.js';
import type { FolderTrust } from '../sessions/trust/folder-trust.js';
import type { ControlCaller } from './caller.js';
import type { Handlers } from './dispatch.js';

/**
 * `tether trust` at the computer: folders on this computer only (a machine's folders are trusted
 * through the approval its first session raises). What is trusted is exactly what was shown: each
 * agent's fingerprint from `trust.show` must still match when `trust.set` comes.
 */
export interface TrustHandlerDeps {
  trust: FolderTrust;
  /** This computer, as its sessions reach it. */
  local: ExecutionContext;
}

export function trustHandlers(
  deps: TrustHandlerDeps,
): Pick<Handlers<ControlMethods, ControlCaller>, 'trust.show' | 'trust.set' | 'trust.list' | 'trust.revoke'> {
  const { trust, local } = deps;
  const read = async (folder: string) => {
    const checked = await local.checkFolder(folder);
    if (!checked.ok) return checked;
    const configs: FolderConfig[] = [];
    for (const family of TRUST_FAMILIES) configs.push(await trust.read(local, checked.value, family));
    return ok({ folder: checked.value, configs });
  };
  const shown = (config: FolderConfig): TrustConfig => {
    const problem = untrustable(config);
    return {
      family: config.family,
      agent: FAMILY_TITLES[config.family],
      folder: config.folder,
      present: hasConfig(config),
      action: trustAction(config),
      fingerprint: fingerprint(config),
      trusted: trust.isTrusted('local', config),
      ...(problem !== undefined ? { untrustable: problem } : {}),
    };
  };
  return {
    'trust.show': async (p) => {
      const found = await read(p.folder);
      return found.ok ? ok({ folder: found.value.folder, configs: found.value.configs.map(shown) }) : found;
    },
    'trust.set': async (p) => {
      const found = await read(p.folder);
      if (!found.ok) return found;
      const chosen: FolderConfig[] = [];
      for (const { family, fingerprint: expected } of p.fingerprints) {
        const config = found.value.configs.find((c) => c.family === family)!;
        if (!hasConfig(config)) return fail('invalid-params', `${FAMILY_TITLES[family]} has no configuration here`);
        const problem = untrustable(config);
        if (problem !== undefined) return fail('invalid-params', `${FAMILY_TITLES[family]}: ${problem}`);
        if (fingerprint(config) !== expected) {
          return fail(
            'conflict',
            `${FAMILY_TITLES[family]}'s configuration here changed since it was shown; look again`,
          );
        }
        chosen.push(config);
      }
      return ok({
        records: chosen.map((config) =>
          trust.trust({ place: 'local', family: config.family, config, by: 'this computer' }),
        ),
      });
    },
    'trust.list': () => ok({ records: trust.list() }),
    'trust.revoke': async (p) => {
      // A folder that is gone is still forgotten by the name it was trusted under.
      const checked = await local.checkFolder(p.folder);
      const folder = checked.ok ? checked.value : p.folder;
      return ok({ folder, revoked: trust.revoke('local', folder, p.family) });
    },
  };
}
