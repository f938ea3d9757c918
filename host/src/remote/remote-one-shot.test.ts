import {
  decodeChannelMessage,
  encodeChannelMessage,
  openCallReply,
  sealCall,
  secureRandom,
  systemClock,
} from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { pairDevice, until } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('one-shot calls', () => {
  it('answer an approval in one sealed request, and refuse the same call replayed', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE });
    const device = await pairDevice(t, { scopes: ['watch', 'approve'] });
    const created = await t.host.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const approval = await until(() => t!.host.approvals.pending()[0]);
    const call = sealCall(
      {
        deviceId: device.reply.deviceId,
        deviceKeys: device.keys,
        hostBoxPublicKey: device.hostBoxPublicKey,
        clock: systemClock,
        random: secureRandom,
      },
      encodeChannelMessage({
        t: 'req',
        id: 7,
        method: 'approvals.answer',
        params: { id: approval.id, decision: 'allow-once' },
      }),
    );
    const post = (body: Uint8Array) =>
      fetch(`${t!.url}/rc/call`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/octet-stream' },
      });
    const response = await post(call.message);
    expect(response.status).toBe(200);
    const opened = openCallReply(new Uint8Array(await response.arrayBuffer()), call.replyKey);
    if (!opened.ok) throw new Error(opened.error.code);
    const reply = decodeChannelMessage(opened.value);
    expect(reply).toMatchObject({
      t: 'res',
      id: 7,
      result: { approval: { status: 'allowed', answeredBy: { kind: 'device' } } },
    });
    const replayed = await post(call.message);
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ error: { code: 'handshake-replayed' } });
  });
});
