import type { SessionEvent } from '@tether/shared-protocol';
import { ATTACHMENT_CHUNK_BYTES, MAX_OPEN_UPLOADS, toBase64Url, toHex, sha256 } from '@tether/shared-protocol';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachmentDevice, stopAttachmentDevices } from '../../test/support/attachment-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';
import { makePng } from '../../test/support/test-image.js';

let t: TestHost | undefined;

afterEach(async () => {
  stopAttachmentDevices();
  await t?.close();
  t = undefined;
});

const finished = (e: SessionEvent) => e.type === 'run.finished';

/** A host on loopback with one idle demo session and a paired phone. */
async function setup(options: { blobCap?: number } = {}) {
  t = await startTestHost({ remote: LOCAL_REMOTE, ...options });
  const phone = await attachmentDevice(t);
  const session = async () => {
    const created = await t!.host.parts.sessions.create({ cwd: t!.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    await t!.waitFor(created.value.id, (e) => e.type === 'approval.requested');
    t!.host.parts.sessions.interrupt(created.value.id);
    await t!.waitFor(created.value.id, finished);
    return created.value.id;
  };
  return { t, phone, session, id: await session() };
}

/** Nothing half-stored: no temp file, no blob file beyond those `kept`. */
function expectNothingHalfStored(t: TestHost, kept = 0): void {
  expect(readdirSync(join(t.dir, 'data', 'blobs', 'tmp'))).toEqual([]);
  expect(t.host.parts.blobs.files()).toHaveLength(kept);
  expect(t.host.parts.blobs.usedBytes()).toBe(
    t.host.parts.db.prepare('SELECT COALESCE(SUM(size), 0) FROM blobs').pluck().get(),
  );
}

function describe2(bytes: Uint8Array, type = 'image/png') {
  return { name: 'p.png', type, size: bytes.length, sha256: toHex(sha256(bytes)) };
}

describe('attachments refuse bad input with a stable code and keep nothing half-stored', () => {
  it('a 200 MB photo is refused before a byte is sent', async () => {
    const { phone, id, t } = await setup();
    const begun = await phone.client.call('blobs.begin', {
      sessionId: id,
      name: 'huge.jpg',
      type: 'image/jpeg',
      size: 200 * 1024 * 1024,
      sha256: 'a'.repeat(64),
    });
    expect(begun.ok || begun.error.code).toBe('too-large');
    expectNothingHalfStored(t);
  });

  it('a file of the wrong type is refused: by its declared type, and by bytes that are not what they say', async () => {
    const { phone, id, t } = await setup();
    const pdf = await phone.upload(id, 'paper.pdf', 'application/pdf', new Uint8Array([0x25, 0x50, 0x44, 0x46]));
    expect(pdf.ok || pdf.error.code).toBe('unsupported');
    const script = new TextEncoder().encode('<script>alert(1)</script>');
    const fakePng = await phone.upload(id, 'x.png', 'image/png', script);
    expect(fakePng.ok || fakePng.error.code).toBe('unsupported');
    const binary = await phone.upload(id, 'x.txt', 'text/plain', new Uint8Array([0x41, 0, 0xff]));
    expect(binary.ok || binary.error.code).toBe('unsupported');
    expectNothingHalfStored(t);
  });

  it('a thousand attachments: a message names at most 8, and at most 8 uploads are open per device', async () => {
    const { phone, id, t } = await setup();
    const ids = Array.from({ length: 1000 }, (_, i) => toHex(sha256(new Uint8Array([i & 0xff, i >> 8]))));
    const sent = await phone.client.call('sessions.send', { id, text: 'all of them', attachments: ids });
    expect(sent.ok || sent.error.code).toBe('invalid-params');
    const begins = await Promise.all(
      ids.slice(0, 1000).map((sha, i) =>
        phone.client.call('blobs.begin', {
          sessionId: id,
          name: `${i}.png`,
          type: 'image/png',
          size: 100,
          sha256: sha,
        }),
      ),
    );
    expect(begins.filter((r) => r.ok)).toHaveLength(MAX_OPEN_UPLOADS);
    expect(new Set(begins.filter((r) => !r.ok).map((r) => !r.ok && r.error.code))).toEqual(new Set(['busy']));
    expect(t.host.parts.uploads.open).toBe(MAX_OPEN_UPLOADS);
    for (const r of begins) if (r.ok) await phone.client.call('blobs.cancel', { uploadId: r.value.uploadId! });
    expect(t.host.parts.uploads.open).toBe(0);
    expectNothingHalfStored(t);
  });

  it('a truncated chunk, and a finish before every byte came, drop the upload', async () => {
    const { phone, id, t } = await setup();
    const photo = makePng(300, 300, { noise: true });
    const first = await phone.client.call('blobs.begin', { sessionId: id, ...describe2(photo) });
    if (!first.ok) throw new Error(first.error.message);
    const short = await phone.client.call('blobs.chunk', {
      uploadId: first.value.uploadId!,
      index: 0,
      data: toBase64Url(photo.subarray(0, ATTACHMENT_CHUNK_BYTES - 1)),
    });
    expect(short.ok || short.error.code).toBe('invalid-params');
    // The upload is gone: a further chunk finds nothing.
    const after = await phone.client.call('blobs.chunk', { uploadId: first.value.uploadId!, index: 1, data: 'AA' });
    expect(after.ok || after.error.code).toBe('not-found');

    const second = await phone.client.call('blobs.begin', { sessionId: id, ...describe2(photo) });
    if (!second.ok) throw new Error(second.error.message);
    const chunk = {
      uploadId: second.value.uploadId!,
      index: 0,
      data: toBase64Url(photo.subarray(0, ATTACHMENT_CHUNK_BYTES)),
    };
    expect((await phone.client.call('blobs.chunk', chunk)).ok).toBe(true);
    const early = await phone.client.call('blobs.finish', { uploadId: second.value.uploadId! });
    expect(early.ok || early.error.code).toBe('invalid-params');
    expectNothingHalfStored(t);
  });

  it('a chunk out of order or sent twice is a conflict; bytes past the declared size are too large', async () => {
    const { phone, id, t } = await setup();
    const photo = makePng(300, 300, { noise: true });
    const chunkAt = (uploadId: string, index: number) => ({
      uploadId,
      index,
      data: toBase64Url(photo.subarray(index * ATTACHMENT_CHUNK_BYTES, (index + 1) * ATTACHMENT_CHUNK_BYTES)),
    });
    const a = await phone.client.call('blobs.begin', { sessionId: id, ...describe2(photo) });
    if (!a.ok) throw new Error(a.error.message);
    const skipped = await phone.client.call('blobs.chunk', chunkAt(a.value.uploadId!, 1));
    expect(skipped.ok || skipped.error.code).toBe('conflict');

    const b = await phone.client.call('blobs.begin', { sessionId: id, ...describe2(photo) });
    if (!b.ok) throw new Error(b.error.message);
    expect((await phone.client.call('blobs.chunk', chunkAt(b.value.uploadId!, 0))).ok).toBe(true);
    const twice = await phone.client.call('blobs.chunk', chunkAt(b.value.uploadId!, 0));
    expect(twice.ok || twice.error.code).toBe('conflict');

    const small = photo.subarray(0, 1000);
    const c = await phone.client.call('blobs.begin', { sessionId: id, ...describe2(small) });
    if (!c.ok) throw new Error(c.error.message);
    const over = await phone.client.call('blobs.chunk', chunkAt(c.value.uploadId!, 0));
    expect(over.ok || over.error.code).toBe('too-large');
    expectNothingHalfStored(t);
  });

  it('bytes whose hash is not the declared one are refused at finish', async () => {
    const { phone, id, t } = await setup();
    const photo = makePng(40, 40);
    const begun = await phone.client.call('blobs.begin', {
      sessionId: id,
      ...describe2(photo),
      sha256: toHex(sha256(makePng(40, 40, { seed: 2 }))),
    });
    if (!begun.ok) throw new Error(begun.error.message);
    await phone.client.call('blobs.chunk', { uploadId: begun.value.uploadId!, index: 0, data: toBase64Url(photo) });
    const done = await phone.client.call('blobs.finish', { uploadId: begun.value.uploadId! });
    expect(done.ok || done.error.code).toBe('hash-mismatch');
    expectNothingHalfStored(t);
  });

  it("a blob id that isn't the session's is refused for a message and for reading, though another session holds it", async () => {
    const { phone, id, session, t } = await setup();
    const other = await session();
    const photo = makePng(40, 40);
    const mine = await phone.upload(other, 'other.png', 'image/png', photo);
    if (!mine.ok) throw new Error(mine.error.message);
    const sent = await phone.client.call('sessions.send', { id, text: 'look', attachments: [mine.value.id] });
    expect(sent.ok || sent.error.code).toBe('not-found');
    const read = await phone.client.call('blobs.read', { sessionId: id, id: mine.value.id });
    expect(read.ok || read.error.code).toBe('not-found');
    expect(t.events(id).filter((e) => e.type === 'message' && e.text === 'look')).toEqual([]);
    expectNothingHalfStored(t, 1);
  });

  it("past the host's cap an upload is refused with quota-exceeded, counting the open ones too", async () => {
    const { phone, id, t } = await setup({ blobCap: 3000 });
    const a = makePng(20, 20, { noise: true, seed: 3 });
    const b = makePng(20, 20, { noise: true, seed: 5 });
    // Two fit under the cap, three do not.
    expect(2 * a.length).toBeLessThan(3000);
    expect(3 * a.length).toBeGreaterThan(3000);
    expect((await phone.upload(id, 'a.png', 'image/png', a)).ok).toBe(true);
    const open = await phone.client.call('blobs.begin', {
      sessionId: id,
      ...describe2(makePng(20, 20, { noise: true, seed: 4 })),
    });
    expect(open.ok).toBe(true);
    const refused = await phone.upload(id, 'b.png', 'image/png', b);
    expect(refused.ok || refused.error.code).toBe('quota-exceeded');
    if (open.ok) await phone.client.call('blobs.cancel', { uploadId: open.value.uploadId! });
    expectNothingHalfStored(t, 1);
  });

  it('another session keeps streaming while one phone floods uploads with bad chunks', async () => {
    const { phone, id, session, t } = await setup();
    const busy = await session();
    const photo = makePng(300, 300, { noise: true });
    let flooding = true;
    const flood = (async () => {
      let refusals = 0;
      while (flooding) {
        const begun = await phone.client.call('blobs.begin', { sessionId: id, ...describe2(photo) });
        if (!begun.ok) continue;
        const bad = await phone.client.call('blobs.chunk', { uploadId: begun.value.uploadId!, index: 3, data: 'AAAA' });
        if (!bad.ok) refusals++;
      }
      return refusals;
    })();
    // A full demo run of the other session, start to finish, while the flood goes on.
    const before = t.events(busy).length;
    expect(t.host.parts.sessions.send(busy, 'still there?').ok).toBe(true);
    await t.waitFor(busy, (e) => e.type === 'approval.requested' && e.seq > before);
    flooding = false;
    expect(await flood).toBeGreaterThan(0);
    expectNothingHalfStored(t);
  });
});
