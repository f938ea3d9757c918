import { constantTimeEqual, fromBase64UrlExact } from '../encoding.js';
import type { Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import { hostIdFromSignKey } from '../identity.js';
import { KEY_BYTES } from '../key-sizes.js';
import { PAIRING_NONCE_BYTES, confirmationCode, pairingCommitment } from '../pairing-code.js';
import type { PairingLink } from '../pairing-link.js';
import type { PairReply, PairRequestBody } from '../pairing-messages.js';
import { openPairChallenge, openPairReply, sealPairCommit, sealPairReveal } from '../pairing-messages.js';
import type { RandomBytes } from '../random.js';
import { secureRandom } from '../random.js';

export interface PairingFlowOptions {
  link: PairingLink;
  /** The device's static public key: the only part of the key pairing needs. */
  devicePublicKey: Uint8Array;
  label: string;
  /**
   * Sends one body to `POST /rc/pair` and resolves with the host's answer: the JSON of a 200, or
   * the error the host gave (or why it could not be reached).
   */
  post: (body: PairRequestBody) => Promise<Result<unknown>>;
  /** The code to show, called once the host's nonce is known and before the key is revealed. */
  onCode: (code: string) => void;
  random?: RandomBytes;
}

/**
 * Pairing from the device's side (docs/protocol.md, "Pairing"): commit to the key and a fresh
 * nonce, take the host's nonce, show the code, then reveal and wait for the person's answer at the
 * computer. Nothing is revealed before the commitment was answered, and no code exists before the
 * host's nonce: that order is what keeps anyone who saw the link from matching the code.
 */
export async function pairWithHost(options: PairingFlowOptions): Promise<Result<PairReply>> {
  const { link } = options;
  const random = options.random ?? secureRandom;
  const deviceNonce = random(PAIRING_NONCE_BYTES);
  const commitment = pairingCommitment(options.devicePublicKey, deviceNonce);
  const answered = await options.post(sealPairCommit(link.pairingId, { commitment }, link.pairingKey, random));
  if (!answered.ok) return answered;
  const challenge = openPairChallenge(answered.value, link.pairingKey);
  if (!challenge.ok) return challenge;
  options.onCode(
    confirmationCode({
      hostBoxPublicKey: link.hostBoxPublicKey,
      devicePublicKey: options.devicePublicKey,
      pairingKey: link.pairingKey,
      deviceNonce,
      hostNonce: challenge.value.hostNonce,
    }),
  );
  const reveal = sealPairReveal(
    link.pairingId,
    {
      requestId: challenge.value.requestId,
      devicePublicKey: options.devicePublicKey,
      deviceNonce,
      label: options.label,
    },
    link.pairingKey,
    random,
  );
  const replied = await options.post(reveal);
  if (!replied.ok) return replied;
  const reply = openPairReply(replied.value, link.pairingKey);
  if (!reply.ok) return reply;
  const hostBox = fromBase64UrlExact(reply.value.hostBoxPublicKey, KEY_BYTES);
  const hostSign = fromBase64UrlExact(reply.value.hostSignPublicKey, KEY_BYTES);
  // The reply must come from the host the link named, and its id must match its signing key.
  if (!hostBox || !constantTimeEqual(hostBox, link.hostBoxPublicKey)) {
    return fail('pair-failed', 'the reply came from a different computer than the link names');
  }
  if (!hostSign || hostIdFromSignKey(hostSign) !== reply.value.hostId) {
    return fail('pair-failed', 'the reply names a host id that does not match its key');
  }
  return ok(reply.value);
}
