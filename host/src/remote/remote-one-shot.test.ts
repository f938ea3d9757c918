import {
  decodeChannelMessage,
  encodeChannelMessage,
  openCallReply,
  sealCall,
  secureRandom,
  systemClock,
} from '@tether/shared-protocol';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairedDevice } from '../../test/support/remote-device.js';
import { pairDevice, sealDeviceCall, until } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const seal = (device: PairedDevice, method: string, params: unknown) => sealDeviceCall(device, method, params, 7);

const post = (url: string, body: Uint8Array) =>
  fetch(`${url}/rc/call`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });

async function reply(response: Response, replyKey: Uint8Array) {
  expect(response.status).toBe(200);
  const opened = openCallReply(new Uint8Array(await response.arrayBuffer()), replyKey);
  if (!opened.ok) throw new Error(opened.error.code);
  return decodeChannelMessage(opened.value);
}

describe('one-shot calls', () => {
  it('answer an approval in one sealed request, and refuse the same call replayed', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE });
    const device = await pairDevice(t, { scopes: ['watch', 'approve'] });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const approval = await until(() => t!.host.parts.approvals.pending()[0]);
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

  it('offer only the methods meant for them: a one-shot cannot start a session or revoke a device', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE });
    const device = await pairDevice(t);
    const create = seal(device, 'sessions.create', { cwd: t.project, text: 'hello' });
    expect(await reply(await post(t.url, create.message), create.replyKey)).toMatchObject({
      error: { code: 'forbidden' },
    });
    const revoke = seal(device, 'devices.revoke', { id: device.reply.deviceId });
    expect(await reply(await post(t.url, revoke.message), revoke.replyKey)).toMatchObject({
      error: { code: 'forbidden' },
    });
    expect(t.host.parts.sessions.list()).toEqual([]);
    expect(t.host.parts.devices.get(device.reply.deviceId)?.revoked).toBe(false);
  });

  it('refuse a call made before the host started, so a restart does not reopen the replay window', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-oneshot-'));
    try {
      t = await startTestHost({ remote: LOCAL_REMOTE, dataDir: join(dir, 'data') });
      const device = await pairDevice(t);
      const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
      if (!created.ok) throw new Error(created.error.message);
      const approval = await until(() => t!.host.parts.approvals.pending()[0]);
      const call = seal(device, 'approvals.answer', { id: approval.id, decision: 'deny' });
      await t.close();
      // The same data dir, a new process: its replay cache starts empty.
      await new Promise((r) => setTimeout(r, 5));
      t = await startTestHost({ remote: LOCAL_REMOTE, dataDir: join(dir, 'data') });
      const replayed = await post(t.url, call.message);
      expect(replayed.status).toBe(401);
      expect(await replayed.json()).toMatchObject({ error: { code: 'handshake-stale' } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuse a call stamped ahead and taken before a restart, sent again after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-oneshot-'));
    try {
      t = await startTestHost({ remote: LOCAL_REMOTE, dataDir: join(dir, 'data') });
      const device = await pairDevice(t, { scopes: ['watch', 'approve'] });
      const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
      if (!created.ok) throw new Error(created.error.message);
      const approval = await until(() => t!.host.parts.approvals.pending()[0]);
      // The phone's clock runs a minute ahead: its call is stamped after the restart below.
      const ahead = { now: () => Date.now() + 60_000 };
      const call = sealCall(
        {
          deviceId: device.reply.deviceId,
          deviceKeys: device.keys,
          hostBoxPublicKey: device.hostBoxPublicKey,
          clock: ahead,
          random: secureRandom,
        },
        encodeChannelMessage({
          t: 'req',
          id: 7,
          method: 'approvals.answer',
          params: { id: approval.id, decision: 'deny' },
        }),
      );
      expect(await reply(await post(t.url, call.message), call.replyKey)).toMatchObject({
        result: { approval: { status: 'denied' } },
      });
      await t.close();
      t = await startTestHost({ remote: LOCAL_REMOTE, dataDir: join(dir, 'data') });
      const replayed = await post(t.url, call.message);
      expect(replayed.status).toBe(401);
      expect(await replayed.json()).toMatchObject({ error: { code: 'handshake-replayed' } });
      // The phone answering anew is heard (the approval is answered already, so it is told so).
      const fresh = sealCall(
        {
          deviceId: device.reply.deviceId,
          deviceKeys: device.keys,
          hostBoxPublicKey: device.hostBoxPublicKey,
          clock: ahead,
          random: secureRandom,
        },
        encodeChannelMessage({
          t: 'req',
          id: 8,
          method: 'approvals.answer',
          params: { id: approval.id, decision: 'deny' },
        }),
      );
      expect(await reply(await post(t.url, fresh.message), fresh.replyKey)).toMatchObject({
        error: { code: 'already-resolved' },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
