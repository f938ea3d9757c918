import type { PairingLink } from '@tether/shared-protocol';
import {
  PROTOCOL_VERSION,
  generateBoxKeyPair,
  openPairChallenge,
  pairingCommitment,
  parsePairingLink,
  sealPairCommit,
  sealPairReveal,
} from '@tether/shared-protocol';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyAddress } from './bind-address.js';
import { pairOverHttp, postPair, until } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A private LAN address of this machine (not loopback), where a page is not a secure context. */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i !== undefined && !i.internal && classifyAddress(i.address) === 'lan')?.address;

async function setup(pairAnswerWaitMs?: number, bind = LOCAL_REMOTE.bind, extraOrigins?: string[]) {
  const warnings: string[] = [];
  t = await startTestHost({
    remote: { ...LOCAL_REMOTE, bind, ...(extraOrigins ? { extraOrigins } : {}) },
    ...(pairAnswerWaitMs ? { pairAnswerWaitMs } : {}),
    onNotice: (notice) => {
      if (notice.level === 'warning') warnings.push(notice.text);
    },
  });
  const remote = { url: t.url, pairing: t.host.parts.gateway.pairing, pairLink: t.pairLink };
  const link = () => {
    const parsed = parsePairingLink(remote.pairLink());
    if (!parsed.ok) throw new Error(parsed.error.message);
    return parsed.value;
  };
  const commit = (l = link(), key = l.pairingKey) =>
    sealPairCommit(
      l.pairingId,
      { commitment: pairingCommitment(generateBoxKeyPair().publicKey, new Uint8Array(32)) },
      key,
    );
  return { t, remote, link, commit, warnings };
}

/** Someone who saw the link, speaking the pairing steps by hand with a key of their own. */
async function attacker(url: string, l: PairingLink, label: string) {
  const keys = generateBoxKeyPair();
  const nonce = new Uint8Array(32).fill(7);
  const answer = await postPair(
    url,
    sealPairCommit(l.pairingId, { commitment: pairingCommitment(keys.publicKey, nonce) }, l.pairingKey),
  );
  const challenge = openPairChallenge(answer.body, l.pairingKey);
  if (!challenge.ok) throw new Error(`the attacker's commit was refused: ${challenge.error.code}`);
  return postPair(
    url,
    sealPairReveal(
      l.pairingId,
      { requestId: challenge.value.requestId, devicePublicKey: keys.publicKey, deviceNonce: nonce, label },
      l.pairingKey,
    ),
  );
}

describe('pairing over HTTP', () => {
  it('pairs when allowed at the computer, with the code the phone shows', async () => {
    const { t, remote, link } = await setup();
    const l = link();
    let phoneCode = '';
    const phone = pairOverHttp(remote.url, l, { label: 'iPhone · Safari', onCode: (c) => (phoneCode = c) });
    const waiting = await until(() => remote.pairing.requests()[0], 5000, 'the request');
    expect(waiting).toMatchObject({ label: 'iPhone · Safari', code: phoneCode, secure: true });
    expect(remote.pairing.allow(waiting.id, ['watch', 'approve']).ok).toBe(true);
    const reply = await phone.done;
    expect(reply.ok && reply.value).toMatchObject({
      hostId: t.host.parts.identity.hostId,
      scopes: ['watch', 'approve'],
    });
    expect(t.host.parts.devices.list()).toHaveLength(1);
    // The link is spent: a second phone with the same link is told so.
    const again = await pairOverHttp(remote.url, l).done;
    expect(!again.ok && again.error.code).toBe('pair-expired');
  });

  it('names the page the request came from by its Origin, and limits a page this host did not serve', async () => {
    const relayPage = 'https://relay.example.com';
    const { t, remote, link } = await setup(undefined, LOCAL_REMOTE.bind, [relayPage]);
    const pairFrom = async (headers: Record<string, string>) => {
      const phone = pairOverHttp(remote.url, link(), { headers });
      const waiting = await until(() => remote.pairing.requests()[0], 5000, 'the request');
      remote.pairing.deny(waiting.id);
      await phone.done;
      return waiting;
    };
    // The host's own page (a browser sets Origin on every POST).
    expect(await pairFrom({ Origin: t.url })).toMatchObject({
      secure: true,
      page: { from: 'host', origin: t.url },
      scopes: ['watch', 'approve', 'chat', 'terminal'],
    });
    // Another page the host lets call it: its operator chose the app.
    expect(await pairFrom({ Origin: relayPage })).toMatchObject({
      page: { from: 'other', origin: relayPage },
      scopes: ['watch', 'approve'],
    });
    // No Origin at all: a program holding the link, not a page.
    expect(await pairFrom({})).toMatchObject({
      page: { from: 'none' },
      scopes: ['watch', 'approve', 'chat', 'terminal'],
    });
    // Any other page is refused before it reaches pairing.
    const refused = await postPair(remote.url, {}, { Origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
  });

  it('a second key under one link cancels the first request, replaces the link and warns', async () => {
    const { remote, link, warnings } = await setup();
    const l = link();
    const phone = pairOverHttp(remote.url, l, { label: 'iPhone · Safari' });
    await until(() => remote.pairing.requests()[0], 5000, "the phone's request");
    // Same label as the phone: the computer must not end up listing two look-alike requests.
    const forged = await attacker(remote.url, l, 'iPhone · Safari');
    expect(forged).toMatchObject({ status: 410, body: { error: { code: 'pair-expired' } } });
    const result = await phone.done;
    expect(!result.ok && result.error.code).toBe('pair-expired');
    expect(remote.pairing.requests()).toEqual([]);
    expect(link().pairingId).not.toEqual(l.pairingId);
    expect(warnings).toEqual([expect.stringMatching(/two different devices answered the same pairing link/i)]);
  });

  it.skipIf(lanAddress === undefined)(
    'over plain HTTP on a LAN address, a device gets watch and approve unless more is asked at the computer',
    async () => {
      const { t, remote, link } = await setup(undefined, lanAddress);
      expect(t.host.parts.reach.listener?.secureChannel).toBe(false);
      const phone = pairOverHttp(remote.url, link());
      const waiting = await until(() => remote.pairing.requests()[0]);
      expect(waiting).toMatchObject({ secure: false, scopes: ['watch', 'approve'] });
      remote.pairing.allow(waiting.id);
      const reply = await phone.done;
      expect(reply.ok && reply.value.scopes).toEqual(['watch', 'approve']);
    },
  );

  it('tells the phone when the computer denies', async () => {
    const { remote, link } = await setup();
    const phone = pairOverHttp(remote.url, link());
    const waiting = await until(() => remote.pairing.requests()[0]);
    remote.pairing.deny(waiting.id);
    const result = await phone.done;
    expect(!result.ok && result.error.code).toBe('pair-denied');
  });

  it('gives up when nobody answers in time', async () => {
    const { remote, link } = await setup(300);
    const result = await pairOverHttp(remote.url, link()).done;
    expect(!result.ok && result.error.code).toBe('pair-timeout');
    expect(remote.pairing.requests()).toEqual([]);
  });

  it('refuses a replaced link, a wrong key, an old version, a malformed body and an oversized one', async () => {
    const { remote, link, commit } = await setup();
    const old = link();
    remote.pairing.mint();
    expect((await postPair(remote.url, commit(old))).body).toMatchObject({ error: { code: 'pair-expired' } });
    const current = link();
    expect(await postPair(remote.url, commit(current, generateBoxKeyPair().secretKey))).toMatchObject({
      status: 400,
      body: { error: { code: 'pair-failed' } },
    });
    expect((await postPair(remote.url, { ...commit(current), v: PROTOCOL_VERSION - 1 })).body).toMatchObject({
      error: { code: 'version-unsupported' },
    });
    expect((await postPair(remote.url, '{"v":1}')).body).toMatchObject({ error: { code: 'pair-malformed' } });
    expect((await postPair(remote.url, 'not json')).body).toMatchObject({ error: { code: 'pair-malformed' } });
    expect((await postPair(remote.url, { pad: 'x'.repeat(20_000) })).status).toBe(413);
  });

  it('limits posts per source address (two per try: commit and reveal)', async () => {
    const { remote, commit } = await setup();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await postPair(remote.url, commit())).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it('answers a body it cannot read alike however many came before: only tries at its link are counted', async () => {
    const { remote, commit } = await setup();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await postPair(remote.url, { ...commit(), v: 99 })).status);
    expect(statuses.every((s) => s === 400)).toBe(true);
  });
});
