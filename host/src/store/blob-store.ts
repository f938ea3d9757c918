import type { Attachment, AttachmentType } from '@tether/shared-protocol';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Db } from './database.js';

/** Bytes all blobs of a host may hold together, unless the host says otherwise: 1 GiB. */
export const DEFAULT_BLOB_CAP = 1024 * 1024 * 1024;

/**
 * Attachments kept by reference: one file per blob, named by the SHA-256 of its bytes, under the
 * data dir's `blobs/` folder (owner-only), and a row per blob and per (session, blob) in the
 * database. A file appears only by a rename from `blobs/tmp/` after its hash was checked, so a
 * blob id in the table always names whole, verified bytes; what is left in `tmp/` after a crash
 * is removed at start. The same bytes sent to two sessions are kept once.
 */
export class BlobStore {
  readonly tmpDir: string;

  constructor(
    private readonly db: Db,
    readonly dir: string,
    /** Bytes all blobs may hold together; past it an upload is refused (`quota-exceeded`). */
    readonly cap: number = DEFAULT_BLOB_CAP,
  ) {
    this.tmpDir = join(dir, 'tmp');
    // Whatever an upload left half-written when the host stopped is not a blob.
    rmSync(this.tmpDir, { recursive: true, force: true });
    mkdirSync(this.tmpDir, { recursive: true, mode: 0o700 });
  }

  /** Bytes held by stored blobs. */
  usedBytes(): number {
    return (this.db.prepare('SELECT COALESCE(SUM(size), 0) FROM blobs').pluck().get() as number) ?? 0;
  }

  /** The attachment `id` is to `sessionId`, or undefined when that session holds no such blob. */
  forSession(sessionId: string, id: string): Attachment | undefined {
    const row = this.db
      .prepare(
        `SELECT b.id, b.type, b.size, s.name FROM session_blobs s JOIN blobs b ON b.id = s.blob_id
         WHERE s.session_id = ? AND s.blob_id = ?`,
      )
      .get(sessionId, id) as { id: string; type: AttachmentType; size: number; name: string } | undefined;
    return row && { id: row.id, type: row.type, size: row.size, name: row.name };
  }

  /**
   * Makes a verified temp file the blob `id` and gives it to `sessionId`. When the blob is kept
   * already (another session sent the same bytes) the temp file is dropped.
   */
  commit(tempPath: string, blob: Attachment, sessionId: string, at: number): Attachment {
    const path = this.pathOf(blob.id);
    if (existsSync(path)) rmSync(tempPath, { force: true });
    else {
      mkdirSync(join(this.dir, blob.id.slice(0, 2)), { recursive: true, mode: 0o700 });
      renameSync(tempPath, path);
    }
    this.db.transaction(() => {
      this.db
        .prepare('INSERT OR IGNORE INTO blobs (id, type, size, created_at) VALUES (?, ?, ?, ?)')
        .run(blob.id, blob.type, blob.size, at);
      this.db
        .prepare('INSERT OR IGNORE INTO session_blobs (session_id, blob_id, name, added_at) VALUES (?, ?, ?, ?)')
        .run(sessionId, blob.id, blob.name, at);
    })();
    return this.forSession(sessionId, blob.id)!;
  }

  /** Up to `length` bytes of a blob from `offset`; empty past its end. */
  read(id: string, offset: number, length: number): Uint8Array {
    const fd = openSync(this.pathOf(id), 'r');
    try {
      const buffer = new Uint8Array(length);
      const got = readSync(fd, buffer, 0, length, offset);
      return buffer.subarray(0, got);
    } finally {
      closeSync(fd);
    }
  }

  /** A whole blob (at most MAX_ATTACHMENT_BYTES), as a model request needs it. */
  readAll(id: string): Uint8Array | undefined {
    try {
      return readFileSync(this.pathOf(id));
    } catch {
      return undefined;
    }
  }

  /** Blob files on disk, for tests that check nothing half-stored is left. */
  files(): string[] {
    const out: string[] = [];
    for (const entry of readdirSync(this.dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      for (const file of readdirSync(join(this.dir, entry.name))) out.push(join(entry.name, file));
    }
    return out;
  }

  private pathOf(id: string): string {
    // The id was checked as 64 hex characters by the schema; no path can be made of it.
    if (!/^[0-9a-f]{64}$/.test(id)) throw new Error('a blob id is 64 hex characters');
    return join(this.dir, id.slice(0, 2), id);
  }
}
