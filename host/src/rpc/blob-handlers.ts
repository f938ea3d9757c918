import type { AttachmentType, Result } from '@tether/shared-protocol';
import { ATTACHMENT_CHUNK_BYTES, fail, ok, toBase64Url } from '@tether/shared-protocol';
import type { UploadManager } from '../blobs/upload-manager.js';
import type { BlobStore } from '../store/blob-store.js';

export interface BlobHandlerDeps {
  uploads: UploadManager;
  store: BlobStore;
}

/**
 * `blobs.*` for any caller: `owner` names whose uploads these are (a device's id, or the control
 * socket), so one caller can neither add to nor cancel another's.
 */
export function uploadHandlers<C>(deps: BlobHandlerDeps, owner: (caller: C) => string) {
  return {
    'blobs.begin': (p: Parameters<UploadManager['begin']>[1], caller: C) => deps.uploads.begin(owner(caller), p),
    'blobs.chunk': (p: Parameters<UploadManager['chunk']>[1], caller: C) => deps.uploads.chunk(owner(caller), p),
    'blobs.finish': (p: { uploadId: string }, caller: C) => deps.uploads.finish(owner(caller), p.uploadId),
    'blobs.cancel': (p: { uploadId: string }, caller: C) => deps.uploads.cancel(owner(caller), p.uploadId),
  };
}

/**
 * `blobs.read`: a chunk of an attachment of a session, from `offset`. A blob the session does not
 * hold is `not-found`, whether or not another session holds it: a hash is no key to the bytes.
 */
export function readBlob(
  store: BlobStore,
  p: { sessionId: string; id: string; offset?: number | undefined },
): Result<{ type: AttachmentType; size: number; offset: number; data: string }> {
  const attachment = store.forSession(p.sessionId, p.id);
  if (!attachment) return fail('not-found', 'no such attachment in this session');
  const offset = p.offset ?? 0;
  if (offset > attachment.size)
    return fail('invalid-params', `offset ${offset} is past the end (${attachment.size} bytes)`);
  const bytes = store.read(attachment.id, offset, Math.min(ATTACHMENT_CHUNK_BYTES, attachment.size - offset));
  return ok({ type: attachment.type, size: attachment.size, offset, data: toBase64Url(bytes) });
}
