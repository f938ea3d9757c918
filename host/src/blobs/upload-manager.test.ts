import { sha256, toBase64Url, toHex, UPLOAD_IDLE_MS } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../store/blob-store.js';
import { openDatabase } from '../store/database.js';
import { SessionStore } from '../store/session-store.js';
import { UploadManager } from './upload-manager.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'tether-blobs-'));
  dirs.push(dir);
  const db = openDatabase(':memory:');
  new SessionStore(db).insert({
    id: 's1',
    title: 't',
    kind: 'agent',
    place: 'local',
    cwd: '/',
    model: 'demo',
    status: 'idle',
    createdAt: 0,
    updatedAt: 0,
  });
  const clock = new ManualClock(1000);
  let n = 0;
  const counted: string[] = [];
  const make = () => new BlobStore(db, join(dir, 'blobs'));
  const store = make();
  const uploads = new UploadManager({
    store,
    sessionExists: (id) => id === 's1',
    clock,
    newId: (prefix) => `${prefix}${++n}`,
    count: (reason) => counted.push(reason),
  });
  return { dir, store, uploads, clock, counted, make };
}

const text = new TextEncoder().encode('hello\n');
const params = { sessionId: 's1', name: 'a.txt', type: 'text/plain', size: text.length, sha256: toHex(sha256(text)) };

describe('UploadManager', () => {
  it('drops an upload idle past UPLOAD_IDLE_MS, and its temp file with it', () => {
    const { uploads, store, clock, counted } = setup();
    const begun = uploads.begin('device:d1', params);
    if (!begun.ok) throw new Error(begun.error.message);
    expect(readdirSync(store.tmpDir)).toHaveLength(1);
    clock.advance(UPLOAD_IDLE_MS - 1);
    expect(uploads.open).toBe(1);
    clock.advance(1);
    expect(uploads.open).toBe(0);
    expect(readdirSync(store.tmpDir)).toEqual([]);
    expect(counted).toContain('upload:idle');
  });

  it("one caller cannot add to, finish or cancel another's upload", () => {
    const { uploads } = setup();
    const begun = uploads.begin('device:d1', params);
    if (!begun.ok) throw new Error(begun.error.message);
    const uploadId = begun.value.uploadId!;
    const chunk = uploads.chunk('device:d2', { uploadId, index: 0, data: toBase64Url(text) });
    expect(chunk.ok || chunk.error.code).toBe('not-found');
    uploads.cancel('device:d2', uploadId);
    expect(uploads.open).toBe(1);
    expect(uploads.chunk('device:d1', { uploadId, index: 0, data: toBase64Url(text) }).ok).toBe(true);
    const done = uploads.finish('device:d1', uploadId);
    expect(done.ok && done.value.attachment).toEqual({
      id: params.sha256,
      type: 'text/plain',
      size: text.length,
      name: 'a.txt',
    });
  });

  it('refuses an upload for a session that does not exist', () => {
    const { uploads } = setup();
    const begun = uploads.begin('control', { ...params, sessionId: 'nope' });
    expect(begun.ok || begun.error.code).toBe('not-found');
  });

  it('clears what a stopped host left half-written when the store opens again', () => {
    const { store, make } = setup();
    mkdirSync(store.tmpDir, { recursive: true });
    writeFileSync(join(store.tmpDir, 'u99'), 'half');
    const again = make();
    expect(readdirSync(again.tmpDir)).toEqual([]);
  });
});
