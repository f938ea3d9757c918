import type { Result } from '@tether/shared-protocol';
import { fail, fromBase64UrlExact, ok, parseJson } from '@tether/shared-protocol';
import * as v from 'valibot';
import webPush from 'web-push';
import { readSecretFile, writeSecretFile } from '@tether/machine';

/** The host's VAPID key pair (RFC 8292): P-256, base64url, the public half as an uncompressed point. */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const VapidFile = v.object({
  publicKey: v.pipe(
    v.string(),
    v.check((text) => fromBase64UrlExact(text, 65)?.[0] === 0x04, 'not an uncompressed P-256 point'),
  ),
  privateKey: v.pipe(
    v.string(),
    v.check((text) => fromBase64UrlExact(text, 32) !== undefined, 'not 32 bytes'),
  ),
});

/**
 * Loads the VAPID keys from the data dir, making them on first use. They are made once: every
 * subscription a device made is bound to the public key, so new keys would silence every phone
 * until it subscribes again. Kept owner-only, like the host's own keys.
 */
export function loadOrCreateVapidKeys(path: string): Result<{ keys: VapidKeys; created: boolean }> {
  const read = readSecretFile(path);
  if (!read.ok && read.error.code === 'not-found') {
    const keys = webPush.generateVAPIDKeys();
    writeSecretFile(path, `${JSON.stringify({ publicKey: keys.publicKey, privateKey: keys.privateKey }, null, 2)}\n`);
    return ok({ keys, created: true });
  }
  if (!read.ok) return fail('unavailable', read.error.message);
  const parsed = v.safeParse(VapidFile, parseJson(read.value)?.value);
  if (!parsed.success) {
    return fail(
      'unavailable',
      `${path} is not a valid VAPID key file; move it away to make new keys (every phone must switch notifications on again)`,
    );
  }
  return ok({ keys: parsed.output, created: false });
}
