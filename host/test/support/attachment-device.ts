import type { Attachment, Result, SessionEvent } from '@tether/shared-protocol';
import { uploadAttachment } from '@tether/shared-protocol';
import type { TestHost } from './test-host.js';
import { connectDevice, pairDevice, waitForState } from './remote-device.js';

const started: { stop(): void }[] = [];

/** Stops every device `attachmentDevice` started (in a test's afterEach). */
export function stopAttachmentDevices(): void {
  for (const client of started.splice(0)) client.stop();
}

/** A paired phone on a real socket to `t`, ready to upload and send. */
export async function attachmentDevice(t: TestHost) {
  const device = await pairDevice(t, { scopes: ['watch', 'approve', 'chat'] });
  const { client, events } = connectDevice(t, device);
  started.push(client);
  await waitForState(client, 'open');
  const upload = (sessionId: string, name: string, type: string, bytes: Uint8Array): Promise<Result<Attachment>> =>
    uploadAttachment((method, params) => client.call(method, params), { sessionId, name, type, bytes });
  return { client, events, upload };
}

export const isMessage = (e: SessionEvent): e is Extract<SessionEvent, { type: 'message' }> => e.type === 'message';
