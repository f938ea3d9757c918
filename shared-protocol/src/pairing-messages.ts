import nacl from 'tweetnacl';
import * as v from 'valibot';
import { concatBytes, fromBase64Url, fromBase64UrlExact, toBase64Url, utf8Encode } from './encoding.js';
import type { Result } from './errors.js';
import { fail, ok } from './errors.js';
import { KEY_BYTES } from './identity.js';
import { jsonBytes, parseJsonBytes } from './json.js';
import { MAX_DEVICE_LABEL } from './limits.js';
import { PAIRING_ID_BYTES } from './pairing-link.js';
import type { RandomBytes } from './random.js';
import { secureRandom } from './random.js';
import { ScopeSchema } from './scopes.js';
import { PROTOCOL_VERSION } from './version.js';

/**
 * Pairing: the device's request and the host's reply, each a secretbox sealed with the link's
 * pairing key, carried as JSON over HTTP (`POST /rc/pair`). The plaintext names its own type so
 * a reply can never be taken for a request or the other way round.
 */

const b64 = v.pipe(v.string(), v.maxLength(8192), v.regex(/^[A-Za-z0-9_-]*$/));

/** The HTTP body of a pair request and of a pair reply: the envelope around the sealed box. */
export const PairRequestBodySchema = v.object({
  v: v.number(),
  pairingId: b64,
  nonce: b64,
  box: b64,
});

export const PairReplyBodySchema = v.object({
  v: v.number(),
  nonce: b64,
  box: b64,
});

export type PairRequestBody = v.InferOutput<typeof PairRequestBodySchema>;
export type PairReplyBody = v.InferOutput<typeof PairReplyBodySchema>;

const key = v.pipe(v.string(), v.length(43));

const PairRequestPlainSchema = v.object({
  type: v.literal('pair-request'),
  devicePublicKey: key,
  label: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_DEVICE_LABEL)),
});

export const RelayDetailsSchema = v.object({
  url: v.pipe(v.string(), v.maxLength(2048)),
  ticket: v.pipe(v.string(), v.maxLength(4096)),
});

const PairReplyPlainSchema = v.object({
  type: v.literal('pair-reply'),
  deviceId: v.pipe(v.string(), v.length(22)),
  hostId: v.pipe(v.string(), v.length(22)),
  hostName: v.pipe(v.string(), v.maxLength(256)),
  hostBoxPublicKey: key,
  hostSignPublicKey: key,
  scopes: v.array(ScopeSchema),
  relay: v.optional(RelayDetailsSchema),
});

export type PairReply = Omit<v.InferOutput<typeof PairReplyPlainSchema>, 'type'>;
export type RelayDetails = v.InferOutput<typeof RelayDetailsSchema>;

export interface PairRequest {
  pairingId: Uint8Array;
  devicePublicKey: Uint8Array;
  label: string;
}

export function sealPairRequest(
  request: PairRequest,
  pairingKey: Uint8Array,
  random: RandomBytes = secureRandom,
): PairRequestBody {
  const nonce = random(nacl.secretbox.nonceLength);
  const plain = jsonBytes({
    type: 'pair-request',
    devicePublicKey: toBase64Url(request.devicePublicKey),
    label: request.label,
  });
  return {
    v: PROTOCOL_VERSION,
    pairingId: toBase64Url(request.pairingId),
    nonce: toBase64Url(nonce),
    box: toBase64Url(nacl.secretbox(plain, nonce, pairingKey)),
  };
}

/** Decodes the outer body far enough to find the link it names, before any key is known. */
export function decodePairRequestBody(
  input: unknown,
): Result<{ pairingId: Uint8Array; nonce: Uint8Array; box: Uint8Array }> {
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

export function openPairRequest(
  body: { pairingId: Uint8Array; nonce: Uint8Array; box: Uint8Array },
  pairingKey: Uint8Array,
): Result<PairRequest> {
  const plain = nacl.secretbox.open(body.box, body.nonce, pairingKey);
  if (!plain) return fail('pair-failed', 'the pair request does not open with this link');
  const json = parseJsonBytes(plain);
  const parsed = json && v.safeParse(PairRequestPlainSchema, json.value);
  if (!parsed?.success) return fail('pair-malformed', 'the pair request holds the wrong shape');
  const devicePublicKey = fromBase64UrlExact(parsed.output.devicePublicKey, KEY_BYTES);
  if (!devicePublicKey) return fail('pair-malformed', 'the pair request holds an invalid key');
  return ok({ pairingId: body.pairingId, devicePublicKey, label: parsed.output.label });
}

export function sealPairReply(
  reply: PairReply,
  pairingKey: Uint8Array,
  random: RandomBytes = secureRandom,
): PairReplyBody {
  const nonce = random(nacl.secretbox.nonceLength);
  const plain = jsonBytes({ type: 'pair-reply', ...reply });
  return {
    v: PROTOCOL_VERSION,
    nonce: toBase64Url(nonce),
    box: toBase64Url(nacl.secretbox(plain, nonce, pairingKey)),
  };
}

export function openPairReply(input: unknown, pairingKey: Uint8Array): Result<PairReply> {
  const parsed = v.safeParse(PairReplyBodySchema, input);
  if (!parsed.success) return fail('pair-malformed', 'the pair reply has the wrong shape');
  if (parsed.output.v !== PROTOCOL_VERSION) {
    return fail('version-unsupported', `pair reply version ${parsed.output.v}; this app speaks ${PROTOCOL_VERSION}`);
  }
  const nonce = fromBase64UrlExact(parsed.output.nonce, nacl.secretbox.nonceLength);
  const box = fromBase64UrlExactMin(parsed.output.box, nacl.secretbox.overheadLength);
  if (!nonce || !box) return fail('pair-malformed', 'the pair reply has invalid fields');
  const plain = nacl.secretbox.open(box, nonce, pairingKey);
  if (!plain) return fail('pair-failed', 'the pair reply does not open with this link');
  const json = parseJsonBytes(plain);
  const reply = json && v.safeParse(PairReplyPlainSchema, json.value);
  if (!reply?.success) return fail('pair-malformed', 'the pair reply holds the wrong shape');
  if (
    !fromBase64UrlExact(reply.output.hostBoxPublicKey, KEY_BYTES) ||
    !fromBase64UrlExact(reply.output.hostSignPublicKey, KEY_BYTES)
  ) {
    return fail('pair-malformed', 'the pair reply holds an invalid key');
  }
  const { type: _type, ...rest } = reply.output;
  return ok(rest);
}

/**
 * The 6-digit code both sides show. Derived from the host's and the device's public keys and the
 * pairing key, so a person comparing the two screens confirms that the computer received this
 * phone's key, not one swapped in by someone who saw the link.
 */
export function confirmationCode(
  hostBoxPublicKey: Uint8Array,
  devicePublicKey: Uint8Array,
  pairingKey: Uint8Array,
): string {
  const digest = nacl.hash(
    concatBytes(utf8Encode('tether/1 pairing code'), hostBoxPublicKey, devicePublicKey, pairingKey),
  );
  // 40 bits reduced mod 10^6: the bias (< 2^-20) is far below what a person could notice.
  let n = 0;
  for (let i = 0; i < 5; i++) n = n * 256 + digest[i]!;
  return String(n % 1_000_000).padStart(6, '0');
}

/** "482913" → "482 913", as both screens show it. */
export function formatConfirmationCode(code: string): string {
  return `${code.slice(0, 3)} ${code.slice(3)}`;
}

function fromBase64UrlExactMin(text: string, min: number): Uint8Array | undefined {
  const bytes = fromBase64Url(text);
  return bytes && bytes.length >= min ? bytes : undefined;
}
