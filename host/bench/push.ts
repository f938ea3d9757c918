// npm run bench -- push
// Lock-screen approvals, end to end on real sockets: an approval raised on the host → the push
// request received (and decrypted) by the stand-in HTTPS push service; then the action a
// notification sends (a sealed one-shot approvals.answer over POST /rc/call) → the answer recorded
// on the host. p50 and p99 over ROUNDS approvals.
import {
  decodeChannelMessage,
  encodeChannelMessage,
  openCallReply,
  sealCall,
  secureRandom,
  systemClock,
} from '@tether/shared-protocol';
import { startPushService } from '../test/support/push-service.js';
import { connectDevice, pairDevice, until, waitForState } from '../test/support/remote-device.js';
import { LOCAL_REMOTE, startTestHost } from '../test/support/test-host.js';

/** Approvals measured; each is a fresh session of the demo model. */
const ROUNDS = 40;

const service = await startPushService();
const t = await startTestHost({
  remote: LOCAL_REMOTE,
  push: { agent: service.agent, extraPushOrigins: [service.origin] },
});
const device = await pairDevice(t, { scopes: ['watch', 'approve'], label: 'Phone' });
const { client } = connectDevice(t, device);
await waitForState(client, 'open');
const subscribed = await client.call('push.subscribe', service.subscribe());
if (!subscribed.ok) throw new Error(subscribed.error.message);

const toPush: number[] = [];
const toAnswer: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const created = await t.host.parts.sessions.create({ cwd: t.project, text: `list the folder ${i}` });
  if (!created.ok) throw new Error(created.error.message);
  const approval = await until(() => t.host.parts.approvals.pending().find((a) => a.sessionId === created.value.id));
  await service.next((p) => p.topic === approval.id);
  toPush.push(Date.now() - approval.createdAt);

  const started = performance.now();
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
      id: 1,
      method: 'approvals.answer',
      params: { id: approval.id, decision: 'deny' },
    }),
  );
  const response = await fetch(`${t.url}/rc/call`, {
    method: 'POST',
    body: new Uint8Array(call.message),
    headers: { 'content-type': 'application/octet-stream' },
  });
  const opened = openCallReply(new Uint8Array(await response.arrayBuffer()), call.replyKey);
  const reply = opened.ok ? decodeChannelMessage(opened.value) : undefined;
  if (reply?.t !== 'res' || 'error' in reply) throw new Error(`answer failed: ${JSON.stringify(reply)}`);
  toAnswer.push(performance.now() - started);
  if (t.host.parts.approvals.pending().some((a) => a.id === approval.id)) throw new Error('answer not recorded');
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const line = (name: string, values: number[]) =>
  console.log(
    `${name}: p50 ${pct(values, 50).toFixed(1)} ms, p99 ${pct(values, 99).toFixed(1)} ms (${values.length} approvals)`,
  );
line('approval raised → push received by the push service', toPush);
line('notification action → answer recorded on the host', toAnswer);

client.stop();
await t.close();
await service.close();
