import { describe, expect, it } from 'vitest';
import { constantTimeEqual, toBase64Url } from '../encoding.js';
import type { Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import { generateBoxKeyPair, generateHostIdentity } from '../identity.js';
import type { HostIdentity } from '../identity.js';
import { confirmationCode, pairingCommitment } from '../pairing-code.js';
import type { PairingLink } from '../pairing-link.js';
import type { PairRequestBody } from '../pairing-messages.js';
import { decodePairRequestBody, openPairMessage, sealPairChallenge, sealPairReply } from '../pairing-messages.js';
import { seededRandom } from '../testing/seeded-random.js';
import { PROTOCOL_VERSION } from '../version.js';
import { pairWithHost } from './pairing-flow.js';

const random = seededRandom('pairing flow');
const host = generateHostIdentity(random);
const link: PairingLink = {
  base: 'https://laptop.example:7420',
  hostBoxPublicKey: host.box.publicKey,
  pairingId: random(16),
  pairingKey: random(32),
};

interface Log {
  steps: string[];
  hostCode?: string;
}

/**
 * A host that speaks the protocol's pairing steps, checking the commitment, and answering the
 * reveal at once as `answer` says (the person's choice, or a forgery).
 */
function fakeHost(log: Log, answer: 'allow' | 'deny' | 'other-host' | 'wrong-id' | 'fail-commit' | 'bad-challenge') {
  let committed: { commitment: Uint8Array; hostNonce: Uint8Array; requestId: string } | undefined;
  return (body: PairRequestBody): Promise<Result<unknown>> => {
    const decoded = decodePairRequestBody(body);
    if (!decoded.ok) return Promise.resolve(decoded);
    const message = openPairMessage(decoded.value, link.pairingKey);
    if (!message.ok) return Promise.resolve(message);
    log.steps.push(message.value.type);
    if (message.value.type === 'pair-commit') {
      if (answer === 'fail-commit') return Promise.resolve(fail('rate-limited', 'slow down'));
      if (answer === 'bad-challenge') return Promise.resolve(ok({ v: PROTOCOL_VERSION, nonce: 'x', box: 'y' }));
      committed = { commitment: message.value.commitment, hostNonce: random(32), requestId: toBase64Url(random(16)) };
      return Promise.resolve(ok(sealPairChallenge(committed, link.pairingKey, random)));
    }
    const reveal = message.value;
    if (!committed || reveal.requestId !== committed.requestId) return Promise.resolve(fail('pair-failed', 'unknown'));
    if (!constantTimeEqual(pairingCommitment(reveal.devicePublicKey, reveal.deviceNonce), committed.commitment)) {
      return Promise.resolve(fail('pair-failed', 'mismatch'));
    }
    log.hostCode = confirmationCode({
      hostBoxPublicKey: host.box.publicKey,
      devicePublicKey: reveal.devicePublicKey,
      pairingKey: link.pairingKey,
      deviceNonce: reveal.deviceNonce,
      hostNonce: committed.hostNonce,
    });
    if (answer === 'deny') return Promise.resolve(fail('pair-denied', 'no'));
    const keys: HostIdentity = answer === 'other-host' ? generateHostIdentity(random) : host;
    return Promise.resolve(
      ok(
        sealPairReply(
          {
            deviceId: toBase64Url(random(16)),
            hostId: answer === 'wrong-id' ? generateHostIdentity(random).hostId : keys.hostId,
            hostName: 'laptop',
            hostBoxPublicKey: toBase64Url(keys.box.publicKey),
            hostSignPublicKey: toBase64Url(keys.sign.publicKey),
            scopes: ['watch', 'approve'],
          },
          link.pairingKey,
          random,
        ),
      ),
    );
  };
}

function run(answer: Parameters<typeof fakeHost>[1]) {
  const log: Log = { steps: [] };
  const post = fakeHost(log, answer);
  const done = pairWithHost({
    link,
    devicePublicKey: generateBoxKeyPair(random).publicKey,
    label: 'Pixel · Chrome',
    post: (body) => {
      log.steps.push('post');
      return post(body);
    },
    onCode: (code) => log.steps.push(`code ${code}`),
    random,
  });
  return { log, done };
}

describe('pairWithHost', () => {
  it('commits, shows the code once the host nonce is known, then reveals, and returns the reply', async () => {
    const { log, done } = run('allow');
    const result = await done;
    expect(result.ok && result.value.hostId).toBe(host.hostId);
    expect(log.steps).toEqual(['post', 'pair-commit', `code ${log.hostCode}`, 'post', 'pair-reveal']);
    expect(log.hostCode).toMatch(/^\d{6}$/);
  });

  it('reveals nothing and shows no code when the commit was not answered with a challenge', async () => {
    for (const answer of ['fail-commit', 'bad-challenge'] as const) {
      const { log, done } = run(answer);
      const result = await done;
      expect(result.ok).toBe(false);
      expect(log.steps).toEqual(['post', 'pair-commit']);
    }
  });

  it('passes on the refusal of the reveal', async () => {
    const result = await run('deny').done;
    expect(!result.ok && result.error.code).toBe('pair-denied');
  });

  it('refuses a reply from another host than the link names, or naming another host id', async () => {
    for (const answer of ['other-host', 'wrong-id'] as const) {
      const result = await run(answer).done;
      expect(!result.ok && result.error.code).toBe('pair-failed');
    }
  });
});
