import { generateBoxKeyPair, openPairReply, parsePairingLink, sealPairRequest } from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { postPair, until } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function setup(pairAnswerWaitMs?: number) {
  t = await startTestHost({ remote: LOCAL_REMOTE, ...(pairAnswerWaitMs ? { pairAnswerWaitMs } : {}) });
  const remote = { url: t.url, pairing: t.host.gateway.pairing, pairLink: t.pairLink };
  const link = () => {
    const parsed = parsePairingLink(remote.pairLink());
    if (!parsed.ok) throw new Error(parsed.error.message);
    return parsed.value;
  };
  const request = (l = link(), key = l.pairingKey, label = 'Phone') =>
    sealPairRequest({ pairingId: l.pairingId, devicePublicKey: generateBoxKeyPair().publicKey, label }, key);
  return { t, remote, link, request };
}

describe('pairing over HTTP', () => {
  it('pairs when allowed at the computer, and the reply opens with the link key', async () => {
    const { t, remote, link, request } = await setup();
    const l = link();
    const posted = postPair(remote.url, request(l, l.pairingKey, 'iPhone · Safari'));
    const waiting = await until(() => remote.pairing.requests()[0], 5000, 'the request');
    expect(waiting).toMatchObject({ label: 'iPhone · Safari', code: expect.stringMatching(/^\d{6}$/) as string });
    expect(remote.pairing.allow(waiting.id, ['watch', 'approve']).ok).toBe(true);
    const response = await posted;
    expect(response.status).toBe(200);
    const reply = openPairReply(response.body, l.pairingKey);
    expect(reply.ok && reply.value).toMatchObject({ hostId: t.host.hostId, scopes: ['watch', 'approve'] });
    expect(t.host.devices.list()).toHaveLength(1);
    // The link is spent: a second phone with the same link is told so.
    const again = await postPair(remote.url, request(l));
    expect(again).toMatchObject({ status: 410, body: { error: { code: 'pair-expired' } } });
  });

  it('tells the phone when the computer denies', async () => {
    const { remote, request } = await setup();
    const posted = postPair(remote.url, request());
    const waiting = await until(() => remote.pairing.requests()[0]);
    remote.pairing.deny(waiting.id);
    expect(await posted).toMatchObject({ status: 403, body: { error: { code: 'pair-denied' } } });
  });

  it('gives up when nobody answers in time', async () => {
    const { remote, request } = await setup(300);
    expect(await postPair(remote.url, request())).toMatchObject({
      status: 408,
      body: { error: { code: 'pair-timeout' } },
    });
    expect(remote.pairing.requests()).toEqual([]);
  });

  it('refuses a replaced link, a wrong key, a malformed body and an oversized one', async () => {
    const { remote, link, request } = await setup();
    const old = link();
    remote.pairing.mint();
    expect((await postPair(remote.url, request(old))).body).toMatchObject({ error: { code: 'pair-expired' } });
    const current = link();
    expect(await postPair(remote.url, request(current, generateBoxKeyPair().secretKey))).toMatchObject({
      status: 400,
      body: { error: { code: 'pair-failed' } },
    });
    expect((await postPair(remote.url, '{"v":1}')).body).toMatchObject({ error: { code: 'pair-malformed' } });
    expect((await postPair(remote.url, 'not json')).body).toMatchObject({ error: { code: 'pair-malformed' } });
    expect((await postPair(remote.url, { pad: 'x'.repeat(20_000) })).status).toBe(413);
  });

  it('limits attempts per source address', async () => {
    const { remote, request } = await setup();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await postPair(remote.url, { ...request(), v: 99 })).status);
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});
