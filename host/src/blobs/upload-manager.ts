import type { Attachment, Clock, Result, TimerHandle } from '@tether/shared-protocol';
import {
  ATTACHMENT_CHUNK_BYTES,
  ATTACHMENT_TYPES,
  MAX_ATTACHMENT_BYTES,
  MAX_OPEN_UPLOADS,
  UPLOAD_IDLE_MS,
  fail,
  fromBase64Url,
  ok,
} from '@tether/shared-protocol';
import type { Hash } from 'node:crypto';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore } from '../store/blob-store.js';
import { contentMatches } from './blob-content.js';

/** Uploads open at once on the whole host (every caller's): a bound on temp files and memory. */
export const MAX_HOST_UPLOADS = 32;

export interface UploadManagerDeps {
  store: BlobStore;
  /** Whether a session exists (an upload is for one session). */
  sessionExists: (sessionId: string) => boolean;
  clock: Clock;
  newId: (prefix: string) => string;
  /** Milliseconds without a chunk before an upload is dropped; UPLOAD_IDLE_MS when absent. */
  idleMs?: number;
  /** Every refusal, under `upload:<code>`. */
  count?: (reason: string) => void;
}

interface Upload {
  id: string;
  owner: string;
  sessionId: string;
  blob: Attachment;
  received: number;
  nextIndex: number;
  fd: number;
  tempPath: string;
  hash: Hash;
  timer: TimerHandle;
}

/**
 * Attachments on their way in: each is written to a temp file in order, hashed as it comes, and
 * becomes a blob only when `finish` finds every byte there and the hash right. Anything wrong (a
 * chunk out of order or twice, a short chunk, bytes past the declared size, a hash or type that
 * does not match) drops the upload and its temp file with a stable code, so nothing half-stored
 * ever becomes a blob. Bounded: MAX_OPEN_UPLOADS per caller, MAX_HOST_UPLOADS in all, the
 * declared sizes counted against the store's cap while open, and an upload idle for `idleMs`
 * dropped.
 */
export class UploadManager {
  private readonly uploads = new Map<string, Upload>();

  constructor(private readonly deps: UploadManagerDeps) {}

  get open(): number {
    return this.uploads.size;
  }

  begin(
    owner: string,
    params: { sessionId: string; name: string; type: string; size: number; sha256: string },
  ): Result<{ uploadId?: string; chunkSize: number; attachment?: Attachment }> {
    const { store } = this.deps;
    if (!this.deps.sessionExists(params.sessionId)) return this.refuse('not-found', `no session ${params.sessionId}`);
    const type = ATTACHMENT_TYPES.find((t) => t === params.type);
    if (!type) {
      return this.refuse(
        'unsupported',
        `files of type ${params.type.slice(0, 100) || 'unknown'} cannot be attached: send a photo (JPEG, PNG, WebP, GIF) or a text file`,
      );
    }
    if (params.size > MAX_ATTACHMENT_BYTES) {
      return this.refuse(
        'too-large',
        `an attachment may be at most ${MAX_ATTACHMENT_BYTES} bytes; this one is ${params.size}`,
      );
    }
    const held = store.forSession(params.sessionId, params.sha256);
    if (held) return ok({ chunkSize: ATTACHMENT_CHUNK_BYTES, attachment: held });
    const mine = [...this.uploads.values()].filter((u) => u.owner === owner).length;
    if (mine >= MAX_OPEN_UPLOADS) return this.refuse('busy', `at most ${MAX_OPEN_UPLOADS} uploads at once`);
    if (this.uploads.size >= MAX_HOST_UPLOADS)
      return this.refuse('busy', 'the computer is taking too many uploads; try again soon');
    const reserved = [...this.uploads.values()].reduce((sum, u) => sum + u.blob.size, 0);
    if (store.usedBytes() + reserved + params.size > store.cap) {
      return this.refuse('quota-exceeded', `the computer's attachment store is full (${store.cap} bytes)`);
    }
    const id = this.deps.newId('u');
    const tempPath = join(store.tmpDir, id);
    const upload: Upload = {
      id,
      owner,
      sessionId: params.sessionId,
      blob: { id: params.sha256, type, size: params.size, name: params.name },
      received: 0,
      nextIndex: 0,
      fd: openSync(tempPath, 'wx', 0o600),
      tempPath,
      hash: createHash('sha256'),
      timer: this.idleTimer(id),
    };
    this.uploads.set(id, upload);
    return ok({ uploadId: id, chunkSize: ATTACHMENT_CHUNK_BYTES });
  }

  chunk(owner: string, params: { uploadId: string; index: number; data: string }): Result<{ received: number }> {
    const upload = this.find(owner, params.uploadId);
    if (!upload) return this.refuse('not-found', `no upload ${params.uploadId}`);
    if (params.index !== upload.nextIndex) {
      this.drop(upload);
      return this.refuse(
        'conflict',
        `chunk ${params.index} came where chunk ${upload.nextIndex} was due (out of order or sent twice); the upload was dropped`,
      );
    }
    const bytes = fromBase64Url(params.data);
    if (!bytes || bytes.length === 0) {
      this.drop(upload);
      return this.refuse('invalid-params', 'a chunk holds base64url bytes; the upload was dropped');
    }
    const left = upload.blob.size - upload.received;
    if (bytes.length > left) {
      this.drop(upload);
      return this.refuse('too-large', `the upload declared ${upload.blob.size} bytes and got more; it was dropped`);
    }
    if (bytes.length < left && bytes.length !== ATTACHMENT_CHUNK_BYTES) {
      this.drop(upload);
      return this.refuse(
        'invalid-params',
        `chunk ${params.index} holds ${bytes.length} bytes; every chunk but the last holds ${ATTACHMENT_CHUNK_BYTES}; the upload was dropped`,
      );
    }
    writeSync(upload.fd, bytes);
    upload.hash.update(bytes);
    upload.received += bytes.length;
    upload.nextIndex++;
    this.deps.clock.clearTimeout(upload.timer);
    upload.timer = this.idleTimer(upload.id);
    return ok({ received: upload.received });
  }

  finish(owner: string, uploadId: string): Result<{ attachment: Attachment }> {
    const upload = this.find(owner, uploadId);
    if (!upload) return this.refuse('not-found', `no upload ${uploadId}`);
    if (upload.received !== upload.blob.size) {
      this.drop(upload);
      return this.refuse(
        'invalid-params',
        `the upload is incomplete: ${upload.received} of ${upload.blob.size} bytes arrived; it was dropped`,
      );
    }
    const digest = upload.hash.digest('hex');
    if (digest !== upload.blob.id) {
      this.drop(upload);
      return this.refuse(
        'hash-mismatch',
        'the bytes that arrived do not have the SHA-256 the upload declared; it was dropped',
      );
    }
    closeSync(upload.fd);
    upload.fd = -1;
    if (!contentMatches(upload.blob.type, readFileSync(upload.tempPath))) {
      this.drop(upload);
      return this.refuse('unsupported', `the file is not a ${upload.blob.type} file, as it said it was`);
    }
    this.forget(upload);
    return ok({
      attachment: this.deps.store.commit(upload.tempPath, upload.blob, upload.sessionId, this.deps.clock.now()),
    });
  }

  cancel(owner: string, uploadId: string): Result<Record<string, never>> {
    const upload = this.find(owner, uploadId);
    if (upload) this.drop(upload);
    return ok({});
  }

  /** Drops every open upload (the host is stopping). */
  close(): void {
    for (const upload of [...this.uploads.values()]) this.drop(upload);
  }

  private find(owner: string, uploadId: string): Upload | undefined {
    const upload = this.uploads.get(uploadId);
    // Another caller's upload is as unknown as one that never was.
    return upload?.owner === owner ? upload : undefined;
  }

  private idleTimer(id: string): TimerHandle {
    return this.deps.clock.setTimeout(() => {
      const upload = this.uploads.get(id);
      if (!upload) return;
      this.deps.count?.('upload:idle');
      this.drop(upload);
    }, this.deps.idleMs ?? UPLOAD_IDLE_MS);
  }

  private forget(upload: Upload): void {
    this.deps.clock.clearTimeout(upload.timer);
    this.uploads.delete(upload.id);
  }

  private drop(upload: Upload): void {
    this.forget(upload);
    if (upload.fd >= 0) closeSync(upload.fd);
    rmSync(upload.tempPath, { force: true });
  }

  private refuse(
    code: Parameters<typeof fail>[0],
    message: string,
  ): { ok: false; error: ReturnType<typeof fail>['error'] } {
    this.deps.count?.(`upload:${code}`);
    return fail(code, message);
  }
}
