import type { SessionEvent } from '@tether/shared-protocol';
import { fromBase64Url } from '@tether/shared-protocol';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import { FakeOpenAIServer } from '../../test/fakes/fake-openai-server.js';
import { attachmentDevice, isMessage, stopAttachmentDevices } from '../../test/support/attachment-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';
import { makePng } from '../../test/support/test-image.js';

let t: TestHost | undefined;
let fake: FakeAnthropicServer | FakeOpenAIServer | undefined;

afterEach(async () => {
  stopAttachmentDevices();
  await t?.close();
  await fake?.close();
  t = fake = undefined;
});

const finished = (e: SessionEvent) => e.type === 'run.finished';

async function hostWith(kind: 'anthropic' | 'openai' | 'demo') {
  if (kind === 'demo') {
    t = await startTestHost({ remote: LOCAL_REMOTE });
    return t;
  }
  fake = kind === 'anthropic' ? new FakeAnthropicServer() : new FakeOpenAIServer();
  const url = await fake.start();
  const env =
    kind === 'anthropic'
      ? { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url }
      : { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: url };
  t = await startTestHost({
    env,
    remote: LOCAL_REMOTE,
    model: kind === 'anthropic' ? 'anthropic:claude-test' : 'openai:gpt-test',
  });
  return t;
}

/** The image blocks (base64 data) and texts of the last user turn a fake model server received. */
function lastUserTurn(request: Record<string, unknown>, kind: 'anthropic' | 'openai') {
  const messages = request.messages as { role: string; content: unknown }[];
  const user = messages.filter((m) => m.role === 'user').at(-1)!;
  const parts = user.content as Record<string, unknown>[];
  if (kind === 'anthropic') {
    return {
      images: parts
        .filter((p) => p.type === 'image')
        .map((p) => p.source as { type: string; media_type: string; data: string }),
      texts: parts.filter((p) => p.type === 'text').map((p) => p.text as string),
    };
  }
  return {
    images: parts
      .filter((p) => p.type === 'image_url')
      .map((p) => {
        const url = (p.image_url as { url: string }).url;
        const [, media, data] = /^data:([^;]+);base64,(.*)$/.exec(url)!;
        return { type: 'base64', media_type: media!, data: data! };
      }),
    texts: parts.filter((p) => p.type === 'text').map((p) => p.text as string),
  };
}

describe.each(['anthropic', 'openai'] as const)('a photo from the phone reaches the %s model', (kind) => {
  it('goes up sealed in chunks, is kept by its hash, and the model gets it as an image block', async () => {
    const t = await hostWith(kind);
    fake!.enqueue({ text: ['First.'] }, { text: ['A gradient.'] });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await t.waitFor(id, finished);
    const phone = await attachmentDevice(t);
    // Larger than one chunk, so the order of chunks matters.
    const photo = makePng(400, 300, { noise: true, seed: 7 });
    expect(photo.length).toBeGreaterThan(300_000);
    const uploaded = await phone.upload(id, 'desk.png', 'image/png', photo);
    if (!uploaded.ok) throw new Error(uploaded.error.message);
    expect(uploaded.value).toMatchObject({ type: 'image/png', size: photo.length, name: 'desk.png' });
    const sent = await phone.client.call('sessions.send', {
      id,
      text: 'what is this?',
      attachments: [uploaded.value.id],
    });
    expect(sent).toEqual({ ok: true, value: { queued: false } });
    await t.waitFor(id, (e) => finished(e) && e.seq > created.value.lastSeq + 5);

    const turn = lastUserTurn(fake!.requests.at(-1)!, kind);
    expect(turn.images).toHaveLength(1);
    expect(turn.images[0]!.media_type).toBe('image/png');
    expect(Buffer.from(turn.images[0]!.data, 'base64').equals(Buffer.from(photo))).toBe(true);
    expect(turn.texts).toEqual(['what is this?']);

    // The transcript names it by reference; the bytes are in the blob store, once, under their hash.
    const message = t.events(id).filter(isMessage).at(-2)!;
    expect(message).toMatchObject({ role: 'user', text: 'what is this?', attachments: [uploaded.value] });
    const stored = readFileSync(join(t.dir, 'data', 'blobs', uploaded.value.id.slice(0, 2), uploaded.value.id));
    expect(stored.equals(Buffer.from(photo))).toBe(true);

    // Any device that watches the session reads it back, in chunks.
    const parts: Uint8Array[] = [];
    for (let offset = 0; offset < photo.length;) {
      const read = await phone.client.call('blobs.read', { sessionId: id, id: uploaded.value.id, offset });
      if (!read.ok) throw new Error(read.error.message);
      const bytes = fromBase64Url(read.value.data)!;
      parts.push(bytes);
      offset += bytes.length;
    }
    expect(Buffer.concat(parts).equals(Buffer.from(photo))).toBe(true);
  });
});

describe('attachments and the demo model', () => {
  it('says what it received, a text file is given as text, and the same bytes twice are kept once', async () => {
    const t = await hostWith('demo');
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    // The demo's first answer asks to run a command: stop it there.
    await t.waitFor(id, (e) => e.type === 'approval.requested');
    t.host.parts.sessions.interrupt(id);
    await t.waitFor(id, finished);
    const phone = await attachmentDevice(t);
    const photo = makePng(32, 24);
    const image = await phone.upload(id, 'small.png', 'image/png', photo);
    const notes = await phone.upload(id, 'notes.md', 'text/markdown', new TextEncoder().encode('# a\nb\n'));
    if (!image.ok || !notes.ok) throw new Error('upload failed');
    // Sending it again finds it held: no bytes go up.
    const again = await phone.client.call('blobs.begin', {
      sessionId: id,
      name: 'small.png',
      type: 'image/png',
      size: photo.length,
      sha256: image.value.id,
    });
    expect(again.ok && again.value.uploadId === undefined && again.value.attachment?.id === image.value.id).toBe(true);
    const sent = await phone.client.call('sessions.send', {
      id,
      text: '',
      attachments: [image.value.id, notes.value.id],
    });
    expect(sent.ok).toBe(true);
    const reply = await t.waitFor(id, (e) => isMessage(e) && e.role === 'assistant' && /received/.test(e.text));
    expect((reply as Extract<SessionEvent, { type: 'message' }>).text).toContain(
      `I received an image, small.png (image/png, ${photo.length} bytes), the text file notes.md (2 lines).`,
    );
    expect(t.host.parts.blobs.files()).toHaveLength(2);
  });
});
