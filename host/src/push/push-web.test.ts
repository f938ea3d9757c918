import type { ApprovalPush, DeviceClient, ResolvedPush } from '@tether/shared-protocol';
import { decodeDeclarativePush, decodePushPayload } from '@tether/shared-protocol';
import { webkitRefuses } from '../../test/support/declarative-check.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { PushServiceStandIn } from '../../test/support/push-service.js';
import { startPushService } from '../../test/support/push-service.js';
import { connectDevice, pairDevice, until, waitForState } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';

/**
 * The host against a real HTTPS push service stand-in: real sockets, real VAPID, real RFC 8291
 * encryption, decrypted and checked on the other side.
 */

let t: TestHost | undefined;
let service: PushServiceStandIn | undefined;
const clients: DeviceClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.stop();
  await t?.close();
  await service?.close();
  t = undefined;
  service = undefined;
});

async function setUp(options: { requestTimeoutMs?: number } = {}) {
  service = await startPushService();
  t = await startTestHost({
    remote: LOCAL_REMOTE,
    push: {
      agent: service.agent,
      extraPushOrigins: [service.origin],
      retryBaseMs: 20,
      ...options,
    },
  });
  const device = await pairDevice(t, { scopes: ['watch', 'approve'], label: 'Phone' });
  const { client } = connectDevice(t, device);
  clients.push(client);
  await waitForState(client, 'open');
  const subscription = service.subscribe();
  const subscribed = await client.call('push.subscribe', subscription);
  expect(subscribed.ok).toBe(true);
  return { client, device, subscription, host: t.host, service };
}

async function raiseApproval(text = 'list the folder') {
  const created = await t!.host.parts.sessions.create({ cwd: t!.project, text });
  if (!created.ok) throw new Error(created.error.message);
  const approval = await until(() => t!.host.parts.approvals.pending().find((a) => a.sessionId === created.value.id));
  return { session: created.value, approval };
}

describe('push to a real push service', () => {
  it('sends an approval when its session is not open in front: VAPID, TTL, urgency, topic, and an RFC 8291 body', async () => {
    const { host, service } = await setUp();
    const status = await clients[0]!.call('push.status', {});
    if (!status.ok) throw new Error(status.error.message);
    expect(status.value.subscriptions).toHaveLength(1);

    const { approval, session } = await raiseApproval();
    const push = await service.next();
    expect(push.ttl).toBe(120);
    expect(push.urgency).toBe('high');
    expect(push.topic).toBe(approval.id);
    expect(push.vapid.k).toBe(status.value.publicKey);
    expect(push.vapid.aud).toBe(service.origin);
    expect(push.bodyBytes).toBeLessThanOrEqual(4096);
    const payload = decodePushPayload(push.payload) as ApprovalPush;
    expect(payload).toMatchObject({
      type: 'approval',
      hostId: host.parts.identity.hostId,
      approvalId: approval.id,
      sessionId: session.id,
      summary: approval.action,
      lockScreen: 'approve',
    });
    // Nothing secret: no key, no token, only what the notification shows.
    expect(push.payload).not.toContain(host.parts.push.vapid.privateKey);
    await host.parts.push.delivery.idle();
    expect(host.parts.push.status().counters['push:delivered']).toBe(1);
  });

  it('sends a subscription that takes Declarative Web Push a message WebKit shows itself, opening the card', async () => {
    const { host, service, client } = await setUp();
    const subscription = service.subscribe();
    const appUrl = 'https://studio.tail1234.ts.net:8443/';
    expect((await client.call('push.subscribe', { ...subscription, declarative: { appUrl } })).ok).toBe(true);
    const { approval, session } = await raiseApproval();
    const [worker, declarative] = [
      await service.next((p) => p.topic === approval.id && p.endpoint !== subscription.endpoint),
      await service.next((p) => p.topic === approval.id && p.endpoint === subscription.endpoint),
    ];
    expect(declarative).toMatchObject({ ttl: 120, urgency: 'high', topic: approval.id });
    expect(declarative.bodyBytes).toBeLessThanOrEqual(4096);
    expect(webkitRefuses(declarative.payload)).toBeUndefined();
    expect(JSON.parse(declarative.payload)).toEqual({
      web_push: 8030,
      notification: {
        title: expect.stringMatching(/^Run a command on .+\?$/) as unknown,
        body: expect.stringContaining('ls -la') as unknown,
        navigate: `${appUrl}#/h/${host.parts.identity.hostId}/a/${approval.id}`,
        tag: approval.id,
        silent: false,
        data: JSON.parse(worker.payload) as unknown,
      },
    });
    // The worker form elsewhere; a worker handed the declarative one reads the same payload from it.
    expect(decodePushPayload(worker.payload)).toMatchObject({ type: 'approval', sessionId: session.id });
    expect(decodeDeclarativePush(declarative.payload)?.payload).toEqual(decodePushPayload(worker.payload));

    // Only the app's own kind of address: no fragment, no user or password, http(s) only.
    for (const bad of ['https://x.example/#/h', 'https://u:p@x.example/', 'javascript:alert(1)', 'file:///app/']) {
      const refused = await client.call('push.subscribe', { ...service.subscribe(), declarative: { appUrl: bad } });
      expect(refused.ok ? bad : refused.error.code).toBe('invalid-params');
    }
  });

  it('sends nothing while a device shows that session in front, and again once it does not', async () => {
    const { host, service, client } = await setUp();
    const first = await raiseApproval();
    await service.next((p) => p.topic === first.approval.id);
    expect((await client.call('app.visibility', { visible: true, sessionId: first.session.id })).ok).toBe(true);
    const answered = host.parts.approvals.answer(
      first.approval.id,
      { decision: 'allow-once' },
      { kind: 'local', label: 'x' },
    );
    expect(answered.ok).toBe(true);
    await t!.waitFor(first.session.id, (e) => e.type === 'run.finished');

    const sent = host.parts.sessions.send(first.session.id, 'again');
    expect(sent.ok).toBe(true);
    const second = await until(() => host.parts.approvals.pending()[0]);
    await host.parts.push.delivery.idle();
    expect(service.received.filter((p) => p.topic === second.id)).toEqual([]);
    expect(host.parts.push.status().counters['push:skipped:in-front']).toBe(1);

    // Back to the list: the session is no longer in front, so the next one is sent.
    await client.call('app.visibility', { visible: true });
    host.parts.approvals.answer(second.id, { decision: 'deny' }, { kind: 'local', label: 'x' });
    const runs = () => t!.events(first.session.id).filter((e) => e.type === 'run.finished').length;
    await until(() => runs() >= 2 || undefined, 10_000, 'the second run to end');
    const third = await raiseApproval('once more');
    await service.next((p) => p.topic === third.approval.id);
  });

  it('a device with only watch showing the session stops no approval push; one that may answer does', async () => {
    const { host, service, client } = await setUp();
    const watcher = await pairDevice(t!, { scopes: ['watch'], label: 'Wall screen' });
    const { client: watching } = connectDevice(t!, watcher);
    clients.push(watching);
    await waitForState(watching, 'open');
    const first = await raiseApproval();
    await service.next((p) => p.topic === first.approval.id);
    const runs = () => t!.events(first.session.id).filter((e) => e.type === 'run.finished').length;
    const next = async (answered: string, runsBefore: number) => {
      host.parts.approvals.answer(answered, { decision: 'deny' }, { kind: 'local', label: 'x' });
      await until(() => runs() > runsBefore || undefined, 10_000, 'the run to end');
      expect(host.parts.sessions.send(first.session.id, 'again').ok).toBe(true);
      return until(() => host.parts.approvals.pending()[0]);
    };

    // The watch-only device reports the session in front: the phone that can answer is still told.
    expect((await watching.call('app.visibility', { visible: true, sessionId: first.session.id })).ok).toBe(true);
    const second = await next(first.approval.id, 0);
    await service.next((p) => p.topic === second.id);

    // The phone that can answer shows it: then nothing is sent.
    expect((await client.call('app.visibility', { visible: true, sessionId: first.session.id })).ok).toBe(true);
    const third = await next(second.id, 1);
    await host.parts.push.delivery.idle();
    expect(service.received.filter((p) => p.topic === third.id)).toEqual([]);
    expect(host.parts.push.status().counters['push:skipped:in-front']).toBe(1);
  });

  it('tells the other subscriptions when an approval is answered, so its notification closes', async () => {
    const { host, service } = await setUp();
    const { approval } = await raiseApproval();
    await service.next((p) => p.topic === approval.id);
    host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'this computer' });
    const resolved = await service.next((p) => decodePushPayload(p.payload)?.type === 'resolved');
    expect(resolved.topic).toBe(approval.id);
    expect(decodePushPayload(resolved.payload) as ResolvedPush).toMatchObject({
      approvalId: approval.id,
      status: 'allowed',
      by: 'this computer',
    });
  });

  it('forgets a subscription the push service says is gone (410)', async () => {
    const { host, service } = await setUp();
    service.reply = () => ({ status: 410 });
    await raiseApproval();
    await service.next();
    await host.parts.push.delivery.idle();
    expect(host.parts.push.store.count()).toBe(0);
    expect(host.parts.push.status().counters['push:gone']).toBe(1);
  });

  it('tries again after a 500 and a 429, then delivers', async () => {
    const { host, service } = await setUp();
    service.reply = (_push, index) =>
      index === 0 ? { status: 500 } : index === 1 ? { status: 429, headers: { 'retry-after': '0' } } : { status: 201 };
    const { approval } = await raiseApproval();
    await until(() => service.received.length >= 3 || undefined, 10_000, 'three tries');
    await host.parts.push.delivery.idle();
    expect(service.received.map((p) => p.topic)).toEqual([approval.id, approval.id, approval.id]);
    const counters = host.parts.push.status().counters;
    expect(counters['push:retry:server-error']).toBe(1);
    expect(counters['push:retry:rate-limited']).toBe(1);
    expect(counters['push:delivered']).toBe(1);
  });

  it('never holds up the run: a push service that does not answer leaves the agent going', async () => {
    const { host, service, client } = await setUp({ requestTimeoutMs: 60_000 });
    service.reply = () => ({ status: 201, delayMs: 60_000 });
    const { approval, session } = await raiseApproval();
    await service.next((p) => p.topic === approval.id);
    // The request is still waiting for its answer while the person answers and the run ends.
    const answered = await client.call('approvals.answer', { id: approval.id, decision: 'allow-once' });
    expect(answered.ok).toBe(true);
    await t!.waitFor(session.id, (e) => e.type === 'run.finished');
    expect(host.parts.push.delivery.pending).toBeGreaterThan(0);
  });

  it('refuses an endpoint that is not on a push service, and drops subscriptions with the device', async () => {
    const { host, client, device } = await setUp();
    const refused = await client.call('push.subscribe', {
      endpoint: 'https://192.168.1.1/admin',
      keys: service!.subscribe().keys,
    });
    expect(refused.ok ? undefined : refused.error.code).toBe('invalid-params');
    expect(host.parts.push.store.count()).toBe(1);
    host.parts.devices.revoke(device.reply.deviceId, Date.now());
    expect(host.parts.push.store.count()).toBe(0);
  });
});
