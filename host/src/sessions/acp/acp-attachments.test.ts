import type { Attachment } from '@tether/shared-protocol';
import { sha256, toBase64Url, toHex } from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestHost } from '../../../test/support/test-host.js';
import {
  SCRIPTED_AGENT,
  assistantText,
  eventsOf,
  runFinished,
  startAcpTestHost,
  startAgentSession,
} from '../../../test/support/acp-test-host.js';
import { makePng } from '../../../test/support/test-image.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Uploads `bytes` to a session straight through the host's upload manager (as the control socket does). */
function attach(t: TestHost, sessionId: string, name: string, type: string, bytes: Uint8Array): Attachment {
  const { uploads } = t.host.parts;
  const begun = uploads.begin('control', { sessionId, name, type, size: bytes.length, sha256: toHex(sha256(bytes)) });
  if (!begun.ok) throw new Error(begun.error.message);
  const uploadId = begun.value.uploadId!;
  if (!uploads.chunk('control', { uploadId, index: 0, data: toBase64Url(bytes) }).ok) throw new Error('chunk');
  const done = uploads.finish('control', uploadId);
  if (!done.ok) throw new Error(done.error.message);
  return done.value.attachment;
}

describe('attachments to an ACP agent', () => {
  it('an agent that says it takes images gets image content; text files go as text', async () => {
    const started = await startAcpTestHost({
      agents: {
        seeing: {
          title: 'Seeing',
          command: process.execPath,
          args: [SCRIPTED_AGENT],
          env: { SCRIPTED_ACP_IMAGES: '1' },
        },
      },
    });
    close = started.close;
    const t = started.host;
    const id = await startAgentSession(t, 'say ready', 'seeing');
    await runFinished(t, id);
    const photo = makePng(20, 10);
    const image = attach(t, id, 'p.png', 'image/png', photo);
    const notes = attach(t, id, 'n.txt', 'text/plain', new TextEncoder().encode('say from the file'));
    expect(t.host.parts.sessions.send(id, 'say thanks', undefined, [image.id, notes.id]).ok).toBe(true);
    await runFinished(t, id, 2);
    const said = assistantText(t, id);
    expect(said).toContain(`saw image image/png ${photo.length} bytes`);
    expect(said).toContain('from the file');
    expect(said).toContain('thanks');
  });

  it('an agent that does not take images is not sent one, and the transcript says so plainly', async () => {
    const started = await startAcpTestHost();
    close = started.close;
    const t = started.host;
    const id = await startAgentSession(t, 'say ready');
    await runFinished(t, id);
    const image = attach(t, id, 'p.png', 'image/png', makePng(20, 10));
    expect(t.host.parts.sessions.send(id, 'say words only', undefined, [image.id]).ok).toBe(true);
    await runFinished(t, id, 2);
    expect(assistantText(t, id)).not.toContain('saw image');
    expect(assistantText(t, id)).toContain('words only');
    expect(eventsOf(t, id, 'notice').map((n) => n.text)).toContain(
      'Scripted does not take images, so p.png was not sent to it.',
    );
  });
});
