import type { PairingLink } from '@tether/shared-protocol';
import {
  confirmationCode,
  decodePairRequestBody,
  generateHostIdentity,
  openPairMessage,
  sealPairChallenge,
  sealPairReply,
  toBase64Url,
} from '@tether/shared-protocol';
import { seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { makeDeviceKey } from './device-key.js';
import { describePairingError, startPairing } from './pairing.js';

const random = seededRandom('pairing');
const host = generateHostIdentity(random);
/** A fresh link per test: the app keeps one key per link for its retries. */
function newLink(): PairingLink {
  return {
    base: 'http://127.0.0.1:7420',
    hostBoxPublicKey: host.box.publicKey,
    pairingId: random(16),
    pairingKey: random(32),
  };
}

interface Seen {
  code?: string;
  url?: string;
  steps: string[];
  devicePublicKey?: Uint8Array;
}

/** A host's /rc/pair: answers the commit with a challenge, then the reveal with `answer`. */
function fakeHost(answer: 'allow' | 'deny' | 'limit' | 'other-host' | 'garbage', seen: Seen, link: PairingLink) {
  const hostNonce = random(32);
  const requestId = toBase64Url(random(16));
  return (url: string, init: { body: string }): Promise<Response> => {
    seen.url = url;
    const body = decodePairRequestBody(JSON.parse(init.body));
    if (!body.ok) throw new Error(body.error.message);
    const message = openPairMessage(body.value, link.pairingKey);
    if (!message.ok) throw new Error(message.error.message);
    seen.steps.push(message.value.type);
    if (message.value.type === 'pair-commit') {
      const challenge = sealPairChallenge({ requestId, hostNonce }, link.pairingKey, random);
      return Promise.resolve(new Response(JSON.stringify(challenge), { status: 200 }));
    }
    seen.devicePublicKey = message.value.devicePublicKey;
    seen.code = confirmationCode({
      hostBoxPublicKey: host.box.publicKey,
      devicePublicKey: message.value.devicePublicKey,
      pairingKey: link.pairingKey,
      deviceNonce: message.value.deviceNonce,
      hostNonce,
    });
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
    const keys = answer === 'other-host' ? generateHostIdentity(random) : host;
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

function pair(answer: Parameters<typeof fakeHost>[0], subtle?: SubtleCrypto, link = newLink()) {
  const seen: Seen = { steps: [] };
  const codes: string[] = [];
  const attempt = startPairing(link, {
    apiBase: 'http://127.0.0.1:7420',
    label: 'iPhone · Safari',
    fetch: fakeHost(answer, seen, link) as unknown as typeof fetch,
    now: () => 5000,
    onCode: (code) => {
      codes.push(code);
      seen.steps.push('code shown');
    },
    roundTrip: keepsAll,
    makeKey: () => makeDeviceKey(subtle, keepsAll, random),
    random,
  });
  return { attempt, seen, codes };
}

/** Node's own structured clone as the storage: keeps what Chromium keeps. */
const keepsAll = (value: unknown) => Promise.resolve(structuredClone(value));

describe('pairing', () => {
  it('shows the code once the host answered the commit, the same as the host, and makes a host record', async () => {
    const { attempt, seen, codes } = pair('allow');
    const result = await attempt.done;
    expect(seen.url).toBe('http://127.0.0.1:7420/rc/pair');
    expect(seen.steps).toEqual(['pair-commit', 'code shown', 'pair-reveal']);
    expect(codes).toEqual([seen.code]);
    expect(codes[0]).toMatch(/^\d{6}$/);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value).toMatchObject({ hostId: host.hostId, name: 'laptop', pairedAt: 5000, recentFolders: [] });
    // Without WebCrypto: the raw secret key, the fallback.
    expect(result.value.keyStorage).toBe('raw');
    expect(result.value.deviceSecretKey).toHaveLength(43);
    expect(result.value.deviceKey).toBeUndefined();
  });

  it('keeps a non-extractable WebCrypto key where X25519 is there', async () => {
    const result = await pair('allow', crypto.subtle).attempt.done;
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.deviceSecretKey).toBeUndefined();
    expect(result.value.keyStorage).toBe('webcrypto');
    expect(result.value.deviceKey?.privateKey).toBeInstanceOf(CryptoKey);
    expect(result.value.deviceKey?.privateKey.extractable).toBe(false);
    expect(result.value.deviceKey?.publicKey).toHaveLength(43);
  });

  it('tries again on the same link with the same key (a retry, not a second device), and a new link with a new one', async () => {
    const link = newLink();
    const first = pair('deny', undefined, link);
    await first.attempt.done;
    const again = pair('allow', undefined, link);
    await again.attempt.done;
    expect(again.seen.devicePublicKey).toEqual(first.seen.devicePublicKey);
    // New nonces, so a new code even for the same key.
    expect(again.codes[0]).not.toBe(first.codes[0]);
    const other = pair('allow');
    await other.attempt.done;
    expect(other.seen.devicePublicKey).not.toEqual(first.seen.devicePublicKey);
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

  it('sends nothing, and says why, where this browser keeps nothing: a pairing would be forgotten', async () => {
    const link = newLink();
    const posts: string[] = [];
    const attempt = startPairing(link, {
      apiBase: 'http://127.0.0.1:7420',
      label: 'iPhone · Safari',
      fetch: ((url: string) => {
        posts.push(url);
        return Promise.reject(new Error('not reached'));
      }) as unknown as typeof fetch,
      now: () => 5000,
      onCode: () => posts.push('code shown'),
      roundTrip: () => Promise.resolve(undefined),
      random,
    });
    const result = await attempt.done;
    if (result.ok) throw new Error('paired with nowhere to keep it');
    expect(result.error.code).toBe('storage-failed');
    expect(posts).toEqual([]);
    const { text, retry } = describePairingError(result.error);
    expect(text).toContain('Nothing was paired');
    expect(retry).toBe(true);
    // Once the storage keeps things again, trying the same link again makes a key and pairs.
    const again = pair('allow', undefined, link);
    expect((await again.attempt.done).ok).toBe(true);
  });

  it('says what became of the device when the pairing was allowed but could not be saved', () => {
    const why = (revoked: boolean) =>
      describePairingError({
        code: 'storage-failed',
        message: 'not saved',
        afterPairing: { deviceId: 'DDDDDDDDDDDDDDDDDDDDDA', revoked },
      });
    expect(why(true).text).toContain('The computer was told to forget this device');
    expect(why(false).text).toContain('`tether devices revoke DDDDDDDDDDDDDDDDDDDDDA` removes it');
    // An id that starts with a dash is written after `--`, so the line works when copied.
    const dashed = describePairingError({
      code: 'storage-failed',
      message: 'not saved',
      afterPairing: { deviceId: '-DDDDDDDDDDDDDDDDDDDDA', revoked: false },
    });
    expect(dashed.text).toContain('`tether devices revoke -- -DDDDDDDDDDDDDDDDDDDDA` removes it');
    // The link is spent once allowed: a new code is needed.
    expect(why(true).retry).toBe(false);
    expect(why(false).retry).toBe(false);
  });

  it('says when the computer denied it', async () => {
    const result = await pair('deny').attempt.done;
    expect(!result.ok && result.error.code).toBe('pair-denied');
    if (!result.ok) expect(describePairingError(result.error).retry).toBe(true);
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
