import type { HostIdentity } from '@tether/shared-protocol';
import { decodeHostIdentity, encodeHostIdentity, generateHostIdentity, parseJson } from '@tether/shared-protocol';
import { readSecretFile, writeSecretFile } from './secret-file.js';

export type IdentityLoad = { ok: true; identity: HostIdentity; created: boolean } | { ok: false; message: string };

/** Loads the host's keys from the data dir, creating them on first start. */
export function loadOrCreateIdentity(path: string): IdentityLoad {
  const read = readSecretFile(path);
  if (!read.ok && read.missing) {
    const identity = generateHostIdentity();
    writeSecretFile(path, `${JSON.stringify(encodeHostIdentity(identity), null, 2)}\n`);
    return { ok: true, identity, created: true };
  }
  if (!read.ok) return { ok: false, message: read.message };
  const json = parseJson(read.text);
  const decoded = json ? decodeHostIdentity(json.value) : undefined;
  if (!decoded?.ok) {
    return {
      ok: false,
      message: `${path} is not a valid host key file; move it away to start with new keys (every device must pair again)`,
    };
  }
  return { ok: true, identity: decoded.value, created: false };
}
