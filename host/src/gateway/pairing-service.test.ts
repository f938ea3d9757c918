import {
  PAIRING_LINK_TTL_MS,
  generateBoxKeyPair,
  generateHostIdentity,
  parsePairingLink,
  sealPairRequest,
} from '@tether/shared-protocol';
import { ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/database.js';
import { DeviceStore } from '../store/device-store.js';
import { FAILED_OPENS_BEFORE_ROTATION, MAX_DEVICES, PairingService } from './pairing-service.js';

function setup() {
  const clock = new ManualClock();
  const random = seededRandom('pairing-service');
  const devices = new DeviceStore(openDatabase(':memory:'));
  const warnings: string[] = [];
  let n = 0;
  const service = new PairingService({
    identity: generateHostIdentity(random),
    devices,
    clock,
    random,
    newId: (p) => `${p}_${++n}`,
    hostName: 'laptop',
    onRequest: () => undefined,
    onWarning: (w) => warnings.push(w),
  });
  const link = () => {
    const parsed = parsePairingLink(service.currentLink('http://10.0.0.2:7420').link);
    if (!parsed.ok) throw new Error('bad link');
    return parsed.value;
  };
  const body = (key?: Uint8Array) => {
    const l = link();
    return sealPairRequest(
      { pairingId: l.pairingId, devicePublicKey: generateBoxKeyPair(random).publicKey, label: 'phone' },
      key ?? l.pairingKey,
      random,
    );
  };
  return { clock, service, devices, warnings, link, body };
}

const never = new AbortController().signal;
const code = async (p: Promise<{ ok: boolean; error?: { code: string } }>) => {
  const r = await p;
  return r.ok ? 'ok' : r.error!.code;
};

describe('PairingService', () => {
  it('expires a link after ten minutes', async () => {
    const s = setup();
    const stale = s.body();
    s.clock.advance(PAIRING_LINK_TTL_MS + 1);
    expect(await code(s.service.pair(stale, 'a', never))).toBe('pair-expired');
  });

  it(`replaces the link after ${FAILED_OPENS_BEFORE_ROTATION} boxes that do not open, with a warning`, async () => {
    const s = setup();
    const before = s.link();
    for (let i = 0; i < FAILED_OPENS_BEFORE_ROTATION; i++) {
      expect(await code(s.service.pair(s.body(generateBoxKeyPair().secretKey), `10.0.0.${i}`, never))).toBe(
        'pair-failed',
      );
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
    expect(await code(s.service.pair(s.body(), 'a', never))).toBe('pair-limit');
  });

  it('holds a request until allowed, spends the link, and answers a racing request with pair-expired', async () => {
    const s = setup();
    const first = s.service.pair(s.body(), 'a', never);
    const second = s.service.pair(s.body(), 'b', never);
    const [a, b] = s.service.requests();
    expect(s.service.allow(a!.id).ok).toBe(true);
    expect(await code(first)).toBe('ok');
    const lost = s.service.allow(b!.id);
    expect(!lost.ok && lost.error.code).toBe('pair-expired');
    expect(await code(second)).toBe('pair-expired');
  });

  it('times out an unanswered request and when the phone gives up', async () => {
    const s = setup();
    const waiting = s.service.pair(s.body(), 'a', never);
    s.clock.advance(50_000);
    expect(await code(waiting)).toBe('pair-timeout');
    const controller = new AbortController();
    const abandoned = s.service.pair(s.body(), 'a', controller.signal);
    controller.abort();
    expect(await code(abandoned)).toBe('pair-timeout');
    expect(s.service.requests()).toEqual([]);
  });

  it('shows hidden characters in labels as visible marks (no terminal escapes)', () => {
    const s = setup();
    const l = s.link();
    void s.service.pair(
      sealPairRequest(
        { pairingId: l.pairingId, devicePublicKey: generateBoxKeyPair().publicKey, label: 'evil\u001b[2Jphone' },
        l.pairingKey,
      ),
      'a',
      never,
    );
    expect(s.service.requests()[0]?.label).toBe('evil⟨ESC⟩[2Jphone');
  });
});
