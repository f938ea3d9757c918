import type { HostIdentity, Result } from '@tether/shared-protocol';
import {
  decodeHostIdentity,
  encodeHostIdentity,
  fail,
  generateHostIdentity,
  ok,
  parseJson,
} from '@tether/shared-protocol';
import { readSecretFile, writeSecretFile } from '@tether/machine';

/** Loads the host's keys from the data dir, creating them on first start. */
export function loadOrCreateIdentity(path: string): Result<{ identity: HostIdentity; created: boolean }> {
  const read = readSecretFile(path);
  if (!read.ok && read.error.code === 'not-found') {
    const identity = generateHostIdentity();
    writeSecretFile(path, `${JSON.stringify(encodeHostIdentity(identity), null, 2)}\n`);
    return ok({ identity, created: true });
  }
  if (!read.ok) return fail('unavailable', read.error.message);
  const json = parseJson(read.value);
  const decoded = json ? decodeHostIdentity(json.value) : undefined;
  if (!decoded?.ok) {
    return fail(
      'unavailable',
      `${path} is not a valid host key file; move it away to start with new keys (every device must pair again)`,
    );
  }
  return ok({ identity: decoded.value, created: false });
}
