import type { PairingLink } from '@tether/shared-protocol';
import {
  confirmationCode,
  decodePairRequestBody,
  generateHostIdentity,
  openPairRequest,
  sealPairReply,
  toBase64Url,
} from '@tether/shared-protocol';
import { seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { describePairingError, startPairing } from './pairing.js';

const random = seededRandom('pairing');
const host = generateHostIdentity(random);
const link: PairingLink = {
  base: 'http://127.0.0.1:7420',
  hostBoxPublicKey: host.box.publicKey,
  pairingId: random(16),
  pairingKey: random(32),
};

/** A host's /rc/pair answering with `answer` once it has opened the request. */
function fakeHost(
  answer: 'allow' | 'deny' | 'limit' | 'other-host' | 'garbage',
  seen: { code?: string; url?: string },
) {
  return (url: string, init: { body: string }): Promise<Response> => {
    seen.url = url;
    const body = decodePairRequestBody(JSON.parse(init.body));
    if (!body.ok) throw new Error(body.error.message);
    const request = openPairRequest(body.value, link.pairingKey);
    if (!request.ok) throw new Error(request.error.message);
    seen.code = confirmationCode(host.box.publicKey, request.value.devicePublicKey, link.pairingKey);
    if (answer === 'deny') {
      return Promise.resolve(
        new Response(JSON.stringify({ error: { code: 'pair-denied', message: 'no' } }), { status: 403 }),
      );
    }
    if (answer === 'limit') {
      const error = { code: 'pair-limit', message: 'already 16 devices are paired; revoke one first' };
      return Promise.resolve(new Response(JSON.stringify({ error }), { status: 403 }));
    }
    if (answer === 'garbage') return Promise.resolve(new Response('<html>', { status: 502 }));
    const other = generateHostIdentity(random);
    const keys = answer === 'other-host' ? other : host;
    const reply = sealPairReply(
      {
        deviceId: toBase64Url(random(16)),
        hostId: keys.hostId,
        hostName: 'laptop',
        hostBoxPublicKey: toBase64Url(keys.box.publicKey),
        hostSignPublicKey: toBase64Url(keys.sign.publicKey),
        scopes: ['watch', 'approve', 'chat'],
      },
      link.pairingKey,
      random,
    );
    return Promise.resolve(new Response(JSON.stringify(reply), { status: 200 }));
  };
}

function pair(answer: Parameters<typeof fakeHost>[0]) {
  const seen: { code?: string; url?: string } = {};
  const attempt = startPairing(link, {
    apiBase: 'http://127.0.0.1:7420',
    label: 'iPhone · Safari',
    fetch: fakeHost(answer, seen) as unknown as typeof fetch,
    now: () => 5000,
    random,
  });
  return { attempt, seen };
}

describe('pairing', () => {
  it('shows the same code as the host and makes a host record from the reply', async () => {
    const { attempt, seen } = pair('allow');
    const result = await attempt.done;
    expect(seen.url).toBe('http://127.0.0.1:7420/rc/pair');
    expect(attempt.code).toBe(seen.code);
    expect(attempt.code).toMatch(/^\d{6}$/);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value).toMatchObject({ hostId: host.hostId, name: 'laptop', pairedAt: 5000, recentFolders: [] });
    expect(result.value.deviceSecretKey).toHaveLength(43);
  });

  it('says when the computer denied it', async () => {
    const result = await pair('deny').attempt.done;
    expect(!result.ok && result.error.code).toBe('pair-denied');
    if (!result.ok) expect(describePairingError(result.error).retry).toBe(true);
  });

  it('says that a computer with all its devices paired needs one revoked first, not to wait', async () => {
    const result = await pair('limit').attempt.done;
    if (result.ok) throw new Error('paired beyond the limit');
    expect(result.error.code).toBe('pair-limit');
    const { text, retry } = describePairingError(result.error);
    expect(text).toContain('already has as many devices as it allows');
    expect(text).toContain('tether devices revoke ID');
    expect(text).not.toBe(describePairingError({ code: 'rate-limited', message: '' }).text);
    expect(text).not.toMatch(/too many pairing attempts|wait a minute/i);
    // The link is not spent by this refusal: once a device is revoked, the same attempt can go again.
    expect(retry).toBe(true);
  });

  it('refuses a reply from a host other than the one the link names', async () => {
    const result = await pair('other-host').attempt.done;
    expect(!result.ok && result.error.code).toBe('pair-failed');
  });

  it('maps an error status without a usable body to a code', async () => {
    const result = await pair('garbage').attempt.done;
    expect(!result.ok && result.error.code).toBe('pair-failed');
  });
});
