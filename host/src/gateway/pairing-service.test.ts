import type { PairingLink, Result } from '@tether/shared-protocol';
import {
  DEFAULT_DEVICE_SCOPES,
  PAIRING_LINK_TTL_MS,
  confirmationCode,
  generateBoxKeyPair,
  generateHostIdentity,
  openPairChallenge,
  pairWithHost,
  pairingCommitment,
  parsePairingLink,
  sealPairCommit,
  sealPairReveal,
} from '@tether/shared-protocol';
import { ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/database.js';
import { DeviceStore } from '../store/device-store.js';
import { MAX_PENDING_COMMITS, PAIR_COMMIT_TTL_MS } from './pair-commits.js';
import type { PairChannel, PairRequestInfo } from './pairing-service.js';
import {
  FAILED_OPENS_BEFORE_ROTATION,
  MAX_DEVICES,
  PAIR_ATTEMPTS_PER_MINUTE,
  PairingService,
} from './pairing-service.js';

const HOST_PAGE = { from: 'host', origin: 'https://laptop.tail1234.ts.net:7420' } as const;
const SECURE: PairChannel = { secure: true, page: HOST_PAGE };
const PLAIN: PairChannel = { secure: false, page: { from: 'host', origin: 'http://10.0.0.2:7420' } };
const never = new AbortController().signal;

function setup() {
  const clock = new ManualClock();
  const random = seededRandom('pairing-service');
  const identity = generateHostIdentity(random);
  const devices = new DeviceStore(openDatabase(':memory:'));
  const warnings: string[] = [];
  const shown: PairRequestInfo[] = [];
  const settled: string[] = [];
  let n = 0;
  const service = new PairingService({
    identity,
    devices,
    clock,
    random,
    newId: (p) => `${p}_${++n}`,
    hostName: 'laptop',
    onRequest: (r) => shown.push(r),
    onSettled: (id) => settled.push(id),
    onWarning: (w) => warnings.push(w),
  });
  const link = (): PairingLink => {
    const parsed = parsePairingLink(service.currentLink('http://10.0.0.2:7420').link);
    if (!parsed.ok) throw new Error('bad link');
    return parsed.value;
  };
  /** A device (the phone, or an attacker holding the link) speaking the pairing steps itself. */
  const device = (l: PairingLink = link(), source = '10.0.0.9', channel = SECURE) => {
    const keys = generateBoxKeyPair(random);
    const nonce = random(32);
    return {
      keys,
      nonce,
      async commit(commitment = pairingCommitment(keys.publicKey, nonce)) {
        const answer = await service.pair(
          sealPairCommit(l.pairingId, { commitment }, l.pairingKey, random),
          source,
          never,
          channel,
        );
        if (!answer.ok) return answer;
        return openPairChallenge(answer.value, l.pairingKey);
      },
      reveal(
        requestId: string,
        options: { key?: Uint8Array; nonce?: Uint8Array; label?: string; signal?: AbortSignal } = {},
      ) {
        return service.pair(
          sealPairReveal(
            l.pairingId,
            {
              requestId,
              devicePublicKey: options.key ?? keys.publicKey,
              deviceNonce: options.nonce ?? nonce,
              label: options.label ?? 'phone',
            },
            l.pairingKey,
            random,
          ),
          source,
          options.signal ?? never,
          channel,
        );
      },
      /** Commit, then reveal: resolves with the challenge and the held reveal. */
      async start(label = 'phone', signal?: AbortSignal) {
        const challenge = await this.commit();
        if (!challenge.ok) throw new Error(challenge.error.message);
        return {
          challenge: challenge.value,
          reply: this.reveal(challenge.value.requestId, { label, ...(signal ? { signal } : {}) }),
        };
      },
    };
  };
  return { clock, random, identity, service, devices, warnings, shown, settled, link, device };
}

const code = async (p: Promise<Result<unknown>> | Result<unknown>) => {
  const r = await p;
  return r.ok ? 'ok' : r.error.code;
};

describe('PairingService', () => {
  it('shows at the computer the same code the phone derives, and pairs when allowed', async () => {
    const s = setup();
    const l = s.link();
    let phoneCode = '';
    const paired = pairWithHost({
      link: l,
      devicePublicKey: generateBoxKeyPair(s.random).publicKey,
      label: 'iPhone · Safari',
      post: (body) => s.service.pair(body, '10.0.0.9', never, SECURE),
      onCode: (c) => (phoneCode = c),
      random: s.random,
    });
    await Promise.resolve();
    const request = await until(() => s.service.requests()[0]);
    expect(request).toMatchObject({ label: 'iPhone · Safari', code: phoneCode });
    expect(s.service.allow(request.id).ok).toBe(true);
    const reply = await paired;
    expect(reply.ok && reply.value.scopes).toEqual([...DEFAULT_DEVICE_SCOPES]);
    // The link is spent.
    expect(s.link().pairingId).not.toEqual(l.pairingId);
  });

  it('expires a link after ten minutes', async () => {
    const s = setup();
    const phone = s.device();
    s.clock.advance(PAIRING_LINK_TTL_MS + 1);
    expect(await code(phone.commit())).toBe('pair-expired');
  });

  it(`replaces the link after ${FAILED_OPENS_BEFORE_ROTATION} boxes that do not open, with a warning`, async () => {
    const s = setup();
    const before = s.link();
    const wrongKey = { ...before, pairingKey: s.random(32) };
    for (let i = 0; i < FAILED_OPENS_BEFORE_ROTATION; i++) {
      expect(await code(s.device(wrongKey, `10.0.0.${i}`).commit())).toBe('pair-failed');
    }
    expect(s.warnings).toHaveLength(1);
    expect(s.link().pairingKey).not.toEqual(before.pairingKey);
  });

  it(`refuses pairing beyond ${MAX_DEVICES} devices`, async () => {
    const s = setup();
    for (let i = 0; i < MAX_DEVICES; i++)
      s.devices.insert({
        id: `d${i}`,
        publicKey: generateBoxKeyPair().publicKey,
        label: 'x',
        scopes: [],
        createdAt: 0,
      });
    expect(await code((await s.device().start()).reply)).toBe('pair-limit');
  });

  it('refuses a reveal that does not match its commitment, and spends the commit', async () => {
    const s = setup();
    const phone = s.device();
    const challenge = await phone.commit();
    if (!challenge.ok) throw new Error(challenge.error.message);
    const id = challenge.value.requestId;
    // Another key, or the right key with another nonce, under the commitment of the first.
    expect(await code(phone.reveal(id, { key: generateBoxKeyPair(s.random).publicKey }))).toBe('pair-failed');
    expect(await code(phone.reveal(id))).toBe('pair-failed');
    const again = await phone.commit();
    if (!again.ok) throw new Error(again.error.message);
    expect(await code(phone.reveal(again.value.requestId, { nonce: s.random(32) }))).toBe('pair-failed');
    expect(s.shown).toEqual([]);
  });

  it('refuses a reveal naming an unknown or expired attempt', async () => {
    const s = setup();
    const phone = s.device();
    expect(await code(phone.reveal('AAAAAAAAAAAAAAAAAAAAAA'))).toBe('pair-failed');
    const challenge = await phone.commit();
    if (!challenge.ok) throw new Error(challenge.error.message);
    s.clock.advance(PAIR_COMMIT_TTL_MS + 1);
    expect(await code(phone.reveal(challenge.value.requestId))).toBe('pair-failed');
    expect(s.shown).toEqual([]);
  });

  it(`holds at most ${MAX_PENDING_COMMITS} commits waiting for their reveal; they expire`, async () => {
    const s = setup();
    for (let i = 0; i < MAX_PENDING_COMMITS; i++)
      expect(await code(s.device(undefined, `10.0.${i}.1`).commit())).toBe('ok');
    expect(await code(s.device(undefined, '10.1.0.1').commit())).toBe('busy');
    s.clock.advance(PAIR_COMMIT_TTL_MS + 1);
    expect(await code(s.device(undefined, '10.1.0.1').commit())).toBe('ok');
  });

  it('cancels everything on a link, replaces it and warns when a second device key answers it', async () => {
    // The attacker saw the link (a shoulder, a screenshot) and races the phone with its own key.
    const s = setup();
    const l = s.link();
    const phone = await s.device(l, '10.0.0.9').start('iPhone · Safari');
    const attacker = await s.device(l, '10.0.0.66').start('iPhone · Safari');
    expect(await code(phone.reply)).toBe('pair-expired');
    expect(await code(attacker.reply)).toBe('pair-expired');
    expect(s.service.requests()).toEqual([]);
    expect(s.settled).toHaveLength(1);
    expect(s.link().pairingId).not.toEqual(l.pairingId);
    expect(s.warnings).toEqual([expect.stringMatching(/two different devices .*someone else has it/i)]);
    // Commits still waiting under the leaked link are gone too.
    const late = s.device(l);
    expect(await code(late.commit())).toBe('pair-expired');
  });

  it('lets the same device key replace its own earlier request (a retry)', async () => {
    const s = setup();
    const phone = s.device();
    const first = await phone.start();
    const firstShown = await until(() => s.service.requests()[0]);
    const second = await phone.start();
    expect(await code(first.reply)).toBe('conflict');
    const requests = s.service.requests();
    expect(requests).toHaveLength(1);
    expect(requests[0]!.id).not.toBe(firstShown.id);
    expect(s.warnings).toEqual([]);
    expect(s.service.allow(requests[0]!.id).ok).toBe(true);
    expect(await code(second.reply)).toBe('ok');
  });

  it('derives a fresh code for every attempt of the same key', async () => {
    const s = setup();
    const phone = s.device();
    const a = await phone.start();
    const b = await phone.start();
    void a.reply;
    void b.reply;
    const [first, second] = s.shown;
    const codeOf = (hostNonce: Uint8Array) =>
      confirmationCode({
        hostBoxPublicKey: s.identity.box.publicKey,
        devicePublicKey: phone.keys.publicKey,
        pairingKey: s.link().pairingKey,
        deviceNonce: phone.nonce,
        hostNonce,
      });
    expect(first!.code).toBe(codeOf(a.challenge.hostNonce));
    expect(second!.code).toBe(codeOf(b.challenge.hostNonce));
    expect(first!.code).not.toBe(second!.code);
  });

  it('times out an unanswered request and when the phone gives up', async () => {
    const s = setup();
    const waiting = await s.device().start();
    s.clock.advance(50_000);
    expect(await code(waiting.reply)).toBe('pair-timeout');
    const controller = new AbortController();
    const abandoned = await s.device().start('phone', controller.signal);
    controller.abort();
    expect(await code(abandoned.reply)).toBe('pair-timeout');
    expect(s.service.requests()).toEqual([]);
  });

  it(`allows ${PAIR_ATTEMPTS_PER_MINUTE} tries a minute from one address`, async () => {
    const s = setup();
    const results: string[] = [];
    for (let i = 0; i <= PAIR_ATTEMPTS_PER_MINUTE; i++) {
      const phone = s.device(undefined, '10.0.0.5');
      const challenge = await phone.commit();
      if (!challenge.ok) {
        results.push(challenge.error.code);
        continue;
      }
      const reveal = phone.reveal(challenge.value.requestId);
      const [request] = s.service.requests();
      if (request) s.service.deny(request.id);
      results.push(await code(reveal));
    }
    expect(results.slice(0, PAIR_ATTEMPTS_PER_MINUTE).every((r) => r === 'pair-denied')).toBe(true);
    expect(results[PAIR_ATTEMPTS_PER_MINUTE]).toBe('rate-limited');
  });

  it('shows hidden characters in labels as visible marks (no terminal escapes)', async () => {
    const s = setup();
    void (await s.device().start('evil\u001b[2Jphone')).reply;
    expect(s.service.requests()[0]?.label).toBe('evil⟨ESC⟩[2Jphone');
  });

  describe('scopes by channel', () => {
    async function pairOver(channel: PairChannel, scopes?: ('watch' | 'approve' | 'chat' | 'terminal')[]) {
      const s = setup();
      const phone = await s.device(undefined, '10.0.0.9', channel).start();
      const request = await until(() => s.service.requests()[0]);
      const allowed = s.service.allow(request.id, scopes);
      const reply = (await phone.reply) as Result<unknown>;
      if (!allowed.ok || !reply.ok) throw new Error('not paired');
      return { request, device: allowed.value };
    }

    it('gives a device paired over a secure channel everything but admin', async () => {
      const { request, device } = await pairOver(SECURE);
      expect(request).toMatchObject({ secure: true, scopes: [...DEFAULT_DEVICE_SCOPES] });
      expect(device.scopes).toEqual([...DEFAULT_DEVICE_SCOPES]);
    });

    it('gives a device paired over plain HTTP only watch and approve, unless more is asked at the computer', async () => {
      const plain = await pairOver(PLAIN);
      expect(plain.request).toMatchObject({ secure: false, scopes: ['watch', 'approve'] });
      expect(plain.device.scopes).toEqual(['watch', 'approve']);
      const asked = await pairOver(PLAIN, ['watch', 'approve', 'chat', 'terminal']);
      expect(asked.device.scopes).toEqual(['watch', 'approve', 'chat', 'terminal']);
    });

    it('gives a device paired on a relay’s page only watch and approve: its operator chose the app', async () => {
      const relay: PairChannel = { secure: true, page: { from: 'relay', origin: 'https://relay.example.com' } };
      const paired = await pairOver(relay);
      expect(paired.request).toMatchObject({
        secure: true,
        page: { from: 'relay', origin: 'https://relay.example.com' },
        scopes: ['watch', 'approve'],
      });
      expect(paired.device.scopes).toEqual(['watch', 'approve']);
      // The person at the computer, who runs that relay, may give it more.
      const asked = await pairOver(relay, ['watch', 'approve', 'chat', 'terminal']);
      expect(asked.device.scopes).toEqual(['watch', 'approve', 'chat', 'terminal']);
    });

    it('gives a device paired on another site’s page only watch and approve, and on the host’s own page or from no page everything but admin', async () => {
      const other = await pairOver({ secure: true, page: { from: 'other', origin: 'https://elsewhere.example' } });
      expect(other.device.scopes).toEqual(['watch', 'approve']);
      const own = await pairOver(SECURE);
      expect(own.request.page).toEqual(HOST_PAGE);
      expect(own.device.scopes).toEqual([...DEFAULT_DEVICE_SCOPES]);
      const program = await pairOver({ secure: true, page: { from: 'none' } });
      expect(program.device.scopes).toEqual([...DEFAULT_DEVICE_SCOPES]);
    });
  });
});

async function until<T>(check: () => T | undefined): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = check();
    if (value !== undefined) return value;
    await Promise.resolve();
  }
  throw new Error('condition never held');
}
