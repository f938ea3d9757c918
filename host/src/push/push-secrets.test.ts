import type { ApprovalPush } from '@tether/shared-protocol';
import { decodeChannelMessage, decodePushPayload, openCallReply } from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../../test/fakes/fake-openai-server.js';
import type { PushServiceStandIn } from '../../test/support/push-service.js';
import { startPushService } from '../../test/support/push-service.js';
import type { PairedDevice } from '../../test/support/remote-device.js';
import { connectDevice, pairDevice, sealDeviceCall, until, waitForState } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';
import { MASK } from './secret-mask.js';

/**
 * The lock-screen attack, end to end: a session whose task and commands hold secrets, its pushes
 * encrypted by the host for a real subscription and decrypted by the stand-in push service as a
 * phone would (RFC 8291). No secret may appear in any field of what the phone receives, and an
 * Approve of such an action sent as a one-shot call (as a notification's button would send it,
 * or anyone holding the device's key) is refused by the host.
 */

let t: TestHost | undefined;
let service: PushServiceStandIn | undefined;
let fake: FakeOpenAIServer | undefined;
const stops: (() => void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await t?.close();
  await service?.close();
  await fake?.close();
  t = service = fake = undefined;
});

/** The task's first line, which becomes the session's title. */
const TITLE = 'Deploy with token ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6 and password hunter2';
const TITLE_SECRETS = ['ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6', 'hunter2'];

/** Each command the outside review saw shown and approvable on a lock screen, with its secret. */
const COMMANDS: [string, string][] = [
  ['curl -u deploy:Sup3rS3cret https://api.example.com/v1/deploy', 'Sup3rS3cret'],
  ["mysql -u root -pS3cretPass appdb -e 'select 1'", 'S3cretPass'],
  ['sshpass -p Hunter2Pass ssh deploy@web1 uptime', 'Hunter2Pass'],
  ['redis-cli -h cache -a R3disPass FLUSHALL', 'R3disPass'],
  ['gh api --access-token t0kenValue123 /user', 't0kenValue123'],
  ['az login --service-principal -u app --client-secret cl1entS3cret --tenant t', 'cl1entS3cret'],
  ['curl -H "Authorization: Bearer live-4f9a2c7e" https://api.example.com', 'live-4f9a2c7e'],
  ['git clone https://me:gh0-pat-value@github.com/me/repo', 'gh0-pat-value'],
];

async function setUp() {
  service = await startPushService();
  fake = new FakeOpenAIServer();
  const url = await fake.start();
  t = await startTestHost({
    remote: LOCAL_REMOTE,
    env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: url },
    model: 'openai:gpt-test',
    push: { agent: service.agent, extraPushOrigins: [service.origin], retryBaseMs: 20 },
  });
  const device = await pairDevice(t, { scopes: ['watch', 'approve'], label: 'Phone' });
  const { client } = connectDevice(t, device);
  stops.push(() => client.stop());
  await waitForState(client, 'open');
  expect((await client.call('push.subscribe', service.subscribe())).ok).toBe(true);
  return { device, service, fake, t };
}

/** A session started with TITLE whose model asks to run `command`; its approval and push. */
async function raise(command: string) {
  fake!.enqueue({ toolCalls: [{ name: 'shell', argumentChunks: [JSON.stringify({ command })] }] });
  fake!.enqueue({ text: ['Understood.'] });
  const created = await t!.host.parts.sessions.create({ cwd: t!.project, text: `${TITLE}\nthen report back` });
  if (!created.ok) throw new Error(created.error.message);
  const approval = await until(() => t!.host.parts.approvals.pending().find((a) => a.sessionId === created.value.id));
  const push = await service!.next((p) => p.topic === approval.id);
  return { session: created.value, approval, push };
}

/** Answers as a notification's button does: one sealed one-shot call; the error code, or 'ok'. */
async function oneShot(device: PairedDevice, approvalId: string, decision: string): Promise<string> {
  const call = sealDeviceCall(device, 'approvals.answer', { id: approvalId, decision });
  const response = await fetch(`${t!.url}/rc/call`, {
    method: 'POST',
    body: new Uint8Array(call.message),
    headers: { 'content-type': 'application/octet-stream' },
  });
  const opened = openCallReply(new Uint8Array(await response.arrayBuffer()), call.replyKey);
  if (!opened.ok) throw new Error(opened.error.code);
  const reply = decodeChannelMessage(opened.value);
  if (!reply || reply.t !== 'res') throw new Error('no reply');
  return 'error' in reply && reply.error ? reply.error.code : 'ok';
}

describe('pushes carry no secret', () => {
  it('masks every field of a decrypted push, the title included, and offers only Deny and Open', async () => {
    const { device } = await setUp();
    for (const [command, secret] of COMMANDS) {
      const { approval, session, push } = await raise(command);
      for (const shown of [secret, ...TITLE_SECRETS]) expect(push.payload, command).not.toContain(shown);
      const payload = decodePushPayload(push.payload) as ApprovalPush;
      expect(payload).toMatchObject({ type: 'approval', approvalId: approval.id, lockScreen: 'deny-only' });
      expect(payload.title).toContain(MASK);
      expect(payload.summary).toContain(MASK);
      // The button is not only hidden: the host refuses the Approve itself, and takes the Deny.
      expect(await oneShot(device, approval.id, 'allow-once')).toBe('forbidden');
      expect(t!.host.parts.approvals.get(approval.id)?.status).toBe('pending');
      expect(await oneShot(device, approval.id, 'deny')).toBe('ok');
      await t!.waitFor(session.id, (e) => e.type === 'run.finished');
    }
    expect(t!.host.parts.gateway.stats.get('call:approve-needs-the-app')).toBe(COMMANDS.length);
  });

  it('refuses a one-shot Approve the lock-screen policy holds back, and takes one it offered', async () => {
    const { device } = await setUp();
    const held = await raise('rm -rf build');
    expect(decodePushPayload(held.push.payload)).toMatchObject({ lockScreen: 'deny-only' });
    expect(await oneShot(device, held.approval.id, 'allow-once')).toBe('forbidden');
    expect(await oneShot(device, held.approval.id, 'deny')).toBe('ok');
    await t!.waitFor(held.session.id, (e) => e.type === 'run.finished');

    const plain = await raise('ls -la');
    expect(decodePushPayload(plain.push.payload)).toMatchObject({ lockScreen: 'approve', summary: 'ls -la' });
    expect(await oneShot(device, plain.approval.id, 'allow-once')).toBe('ok');
    expect(t!.host.parts.approvals.get(plain.approval.id)?.status).toBe('allowed');
  });
});
