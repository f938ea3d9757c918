import nacl from 'tweetnacl';
import * as v from 'valibot';
import { fromBase64Url, fromBase64UrlExact, toBase64Url } from './encoding.js';
import type { Result } from './errors.js';
import { fail, ok } from './errors.js';
import { KEY_BYTES } from './key-sizes.js';
import { jsonBytes, parseJsonBytes } from './json.js';
import { MAX_DEVICE_LABEL } from './limits.js';
import { PAIRING_COMMITMENT_BYTES, PAIRING_NONCE_BYTES } from './pairing-code.js';
import { PAIRING_ID_BYTES } from './pairing-link.js';
import type { RandomBytes } from './random.js';
import { RelayDetailsSchema } from './relay/relay-details.js';
import { secureRandom } from './random.js';
import { ScopeSchema } from './scopes.js';
import { PROTOCOL_VERSION } from './version.js';

/**
 * Pairing messages (docs/protocol.md, "Pairing"), each a secretbox sealed with the link's pairing
 * key, carried as JSON over HTTP (`POST /rc/pair`):
 *
 *   1. device → host  pair-commit     {commitment}
 *      host → device  pair-challenge  {requestId, hostNonce}           (at once)
 *   2. device → host  pair-reveal     {requestId, devicePublicKey, deviceNonce, label}
 *      host → device  pair-reply      {deviceId, hostId, hostName, keys, scopes, relay?}
 *                                                                      (once allowed at the computer)
 *
 * The plaintext names its own type, so no message can be taken for another.
 */

const b64 = v.pipe(v.string(), v.maxLength(8192), v.regex(/^[A-Za-z0-9_-]*$/));

/** The HTTP body the device sends: the envelope around a sealed commit or reveal. */
export const PairRequestBodySchema = v.object({
  v: v.number(),
  pairingId: b64,
  nonce: b64,
  box: b64,
});

/** The HTTP body the host answers with: the envelope around a sealed challenge or reply. */
export const PairReplyBodySchema = v.object({
  v: v.number(),
  nonce: b64,
  box: b64,
});

export type PairRequestBody = v.InferOutput<typeof PairRequestBodySchema>;
export type PairReplyBody = v.InferOutput<typeof PairReplyBodySchema>;

/** 32 bytes as base64url. */
const bytes32 = v.pipe(v.string(), v.length(43), v.regex(/^[A-Za-z0-9_-]+$/));
/** 16 bytes as base64url. */
const bytes16 = v.pipe(v.string(), v.length(22), v.regex(/^[A-Za-z0-9_-]+$/));

/** Bytes of the id the host gives a pairing attempt in its challenge. */
export const PAIR_REQUEST_ID_BYTES = 16;

const PairCommitPlainSchema = v.object({ type: v.literal('pair-commit'), commitment: bytes32 });

const PairRevealPlainSchema = v.object({
  type: v.literal('pair-reveal'),
  requestId: bytes16,
  devicePublicKey: bytes32,
  deviceNonce: bytes32,
  label: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_DEVICE_LABEL)),
});

const PairDevicePlainSchema = v.variant('type', [PairCommitPlainSchema, PairRevealPlainSchema]);

const PairChallengePlainSchema = v.object({
  type: v.literal('pair-challenge'),
  requestId: bytes16,
  hostNonce: bytes32,
});

// In a file of its own (no tweetnacl behind it): the app's stored host records use it on the first screen.
export { RelayDetailsSchema } from './relay/relay-details.js';

const PairReplyPlainSchema = v.object({
  type: v.literal('pair-reply'),
  deviceId: v.pipe(v.string(), v.length(22)),
  hostId: v.pipe(v.string(), v.length(22)),
  hostName: v.pipe(v.string(), v.maxLength(256)),
  hostBoxPublicKey: bytes32,
  hostSignPublicKey: bytes32,
  scopes: v.array(ScopeSchema),
  relay: v.optional(RelayDetailsSchema),
});

export type PairReply = Omit<v.InferOutput<typeof PairReplyPlainSchema>, 'type'>;
export type { RelayDetails } from './relay/relay-details.js';

/** Step 1, device → host: a commitment to the device's key and nonce (pairing-code.ts). */
export interface PairCommit {
  commitment: Uint8Array;
}

/** Step 2, device → host, only after the challenge: the key and nonce committed to, and a label. */
export interface PairReveal {
  /** The id the host gave this attempt in its challenge. */
  requestId: string;
  devicePublicKey: Uint8Array;
  deviceNonce: Uint8Array;
  label: string;
}

export type PairDeviceMessage = ({ type: 'pair-commit' } & PairCommit) | ({ type: 'pair-reveal' } & PairReveal);

/** The host's answer to a commit: an id for the attempt and its own fresh nonce. */
export interface PairChallenge {
  requestId: string;
  hostNonce: Uint8Array;
}

/** The envelope fields of a device message, decoded before any key is known. */
export interface PairRequestEnvelope {
  pairingId: Uint8Array;
  nonce: Uint8Array;
  box: Uint8Array;
}

export function sealPairCommit(
  pairingId: Uint8Array,
  commit: PairCommit,
  pairingKey: Uint8Array,
  random: RandomBytes = secureRandom,
): PairRequestBody {
  return sealDeviceMessage(
    pairingId,
    { type: 'pair-commit', commitment: toBase64Url(commit.commitment) },
    pairingKey,
    random,
  );
}

export function sealPairReveal(
  pairingId: Uint8Array,
  reveal: PairReveal,
  pairingKey: Uint8Array,
  random: RandomBytes = secureRandom,
): PairRequestBody {
  return sealDeviceMessage(
    pairingId,
    {
      type: 'pair-reveal',
      requestId: reveal.requestId,
      devicePublicKey: toBase64Url(reveal.devicePublicKey),
      deviceNonce: toBase64Url(reveal.deviceNonce),
      label: reveal.label,
    },
    pairingKey,
    random,
  );
}

function sealDeviceMessage(
  pairingId: Uint8Array,
  plain: object,
  pairingKey: Uint8Array,
  random: RandomBytes,
): PairRequestBody {
  const nonce = random(nacl.secretbox.nonceLength);
  return {
    v: PROTOCOL_VERSION,
    pairingId: toBase64Url(pairingId),
    nonce: toBase64Url(nonce),
    box: toBase64Url(nacl.secretbox(jsonBytes(plain), nonce, pairingKey)),
  };
}

/** Decodes the outer body far enough to find the link it names, before any key is known. */
export function decodePairRequestBody(input: unknown): Result<PairRequestEnvelope> {
  const parsed = v.safeParse(PairRequestBodySchema, input);
  if (!parsed.success) return fail('pair-malformed', 'the pair request has the wrong shape');
  if (parsed.output.v !== PROTOCOL_VERSION) {
    return fail('version-unsupported', `pair request version ${parsed.output.v}; this host speaks ${PROTOCOL_VERSION}`);
  }
  const pairingId = fromBase64UrlExact(parsed.output.pairingId, PAIRING_ID_BYTES);
  const nonce = fromBase64UrlExact(parsed.output.nonce, nacl.secretbox.nonceLength);
  const box = fromBase64UrlExactMin(parsed.output.box, nacl.secretbox.overheadLength);
  if (!pairingId || !nonce || !box) return fail('pair-malformed', 'the pair request has invalid fields');
  return ok({ pairingId, nonce, box });
}

/** Opens a device message (a commit or a reveal) with the link's key. */
export function openPairMessage(body: PairRequestEnvelope, pairingKey: Uint8Array): Result<PairDeviceMessage> {
  const plain = nacl.secretbox.open(body.box, body.nonce, pairingKey);
  if (!plain) return fail('pair-failed', 'the pair request does not open with this link');
  const json = parseJsonBytes(plain);
  const parsed = json && v.safeParse(PairDevicePlainSchema, json.value);
  if (!parsed?.success) return fail('pair-malformed', 'the pair request holds the wrong shape');
  const message = parsed.output;
  if (message.type === 'pair-commit') {
    const commitment = fromBase64UrlExact(message.commitment, PAIRING_COMMITMENT_BYTES);
    if (!commitment) return fail('pair-malformed', 'the commitment is not canonical base64url');
    return ok({ type: 'pair-commit', commitment });
  }
  const devicePublicKey = fromBase64UrlExact(message.devicePublicKey, KEY_BYTES);
  const deviceNonce = fromBase64UrlExact(message.deviceNonce, PAIRING_NONCE_BYTES);
  if (!devicePublicKey || !deviceNonce || !fromBase64UrlExact(message.requestId, PAIR_REQUEST_ID_BYTES)) {
    return fail('pair-malformed', 'the reveal holds a field that is not canonical base64url');
  }
  return ok({ type: 'pair-reveal', requestId: message.requestId, devicePublicKey, deviceNonce, label: message.label });
}

export function sealPairChallenge(
  challenge: PairChallenge,
  pairingKey: Uint8Array,
  random: RandomBytes = secureRandom,
): PairReplyBody {
  return sealHostMessage(
    { type: 'pair-challenge', requestId: challenge.requestId, hostNonce: toBase64Url(challenge.hostNonce) },
    pairingKey,
    random,
  );
}

export function sealPairReply(
  reply: PairReply,
  pairingKey: Uint8Array,
  random: RandomBytes = secureRandom,
): PairReplyBody {
  return sealHostMessage({ type: 'pair-reply', ...reply }, pairingKey, random);
}

function sealHostMessage(plain: object, pairingKey: Uint8Array, random: RandomBytes): PairReplyBody {
  const nonce = random(nacl.secretbox.nonceLength);
  return {
    v: PROTOCOL_VERSION,
    nonce: toBase64Url(nonce),
    box: toBase64Url(nacl.secretbox(jsonBytes(plain), nonce, pairingKey)),
  };
}

/** Opens the host's answer to a commit. */
export function openPairChallenge(input: unknown, pairingKey: Uint8Array): Result<PairChallenge> {
  const opened = openHostMessage(input, pairingKey, PairChallengePlainSchema);
  if (!opened.ok) return opened;
  const hostNonce = fromBase64UrlExact(opened.value.hostNonce, PAIRING_NONCE_BYTES);
  if (!hostNonce || !fromBase64UrlExact(opened.value.requestId, PAIR_REQUEST_ID_BYTES)) {
    return fail('pair-malformed', 'the challenge holds a field that is not canonical base64url');
  }
  return ok({ requestId: opened.value.requestId, hostNonce });
}

/** Opens the host's answer to a reveal, once the person allowed it. */
export function openPairReply(input: unknown, pairingKey: Uint8Array): Result<PairReply> {
  const opened = openHostMessage(input, pairingKey, PairReplyPlainSchema);
  if (!opened.ok) return opened;
  if (
    !fromBase64UrlExact(opened.value.hostBoxPublicKey, KEY_BYTES) ||
    !fromBase64UrlExact(opened.value.hostSignPublicKey, KEY_BYTES)
  ) {
    return fail('pair-malformed', 'the pair reply holds an invalid key');
  }
  const { type: _type, ...rest } = opened.value;
  return ok(rest);
}

function openHostMessage<S extends v.GenericSchema>(
  input: unknown,
  pairingKey: Uint8Array,
  schema: S,
): Result<v.InferOutput<S>> {
  const parsed = v.safeParse(PairReplyBodySchema, input);
  if (!parsed.success) return fail('pair-malformed', 'the pair answer has the wrong shape');
  if (parsed.output.v !== PROTOCOL_VERSION) {
    return fail('version-unsupported', `pair answer version ${parsed.output.v}; this app speaks ${PROTOCOL_VERSION}`);
  }
  const nonce = fromBase64UrlExact(parsed.output.nonce, nacl.secretbox.nonceLength);
  const box = fromBase64UrlExactMin(parsed.output.box, nacl.secretbox.overheadLength);
  if (!nonce || !box) return fail('pair-malformed', 'the pair answer has invalid fields');
  const plain = nacl.secretbox.open(box, nonce, pairingKey);
  if (!plain) return fail('pair-failed', 'the pair answer does not open with this link');
  const json = parseJsonBytes(plain);
  const message = json && v.safeParse(schema, json.value);
  if (!message?.success) return fail('pair-malformed', 'the pair answer holds the wrong shape');
  return ok(message.output);
}

function fromBase64UrlExactMin(text: string, min: number): Uint8Array | undefined {
  const bytes = fromBase64Url(text);
  return bytes && bytes.length >= min ? bytes : undefined;
}
