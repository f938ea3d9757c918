import type { Attachment, DeviceClient, Result } from '@tether/shared-protocol';
import { toHex, uploadAttachment } from '@tether/shared-protocol';
import type { OutboxFile } from '../data/records.js';

/**
 * Uploads one of a message's files for a session over the device's connection. Loaded on first
 * use (with the protocol's own SHA-256), so an app that never attaches a file never loads it.
 */
export function upload(
  client: Pick<DeviceClient, 'call'>,
  sessionId: string,
  file: OutboxFile,
): Promise<Result<Attachment>> {
  return uploadAttachment((method, params) => client.call(method, params), {
    sessionId,
    ...file,
    ...(globalThis.crypto?.subtle ? { digest: subtleSha256 } : {}),
  });
}

/** SHA-256 by WebCrypto (a secure context only; a plain-HTTP page uses the protocol's own). */
async function subtleSha256(bytes: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(bytes))));
}
