import { utf8Encode } from './encoding.js';
import type { ProtocolError, Result } from './errors.js';
import { fail, protocolError } from './errors.js';
import { parseJsonBytes } from './json.js';
import type { PairRequestEnvelope } from './pairing-messages.js';
import { decodePairRequestBody } from './pairing-messages.js';

/**
 * The answers to pair requests and one-shot calls that must read the same whoever gives them.
 *
 * Someone who knows a host id (it is in every pairing link that names a relay) must not learn from
 * a relay whether that host uses it. So a relay answers a request for a host it does not have with
 * exactly the bytes that a linked host sends back, through it, for a request it cannot open: a pair
 * request under a pairing link it does not hold, a call from a device it does not know. Only a
 * phone holding the current link, or a paired device's key, gets any other answer. Each answer is
 * an HTTP status and a JSON body `{error}`, one copy here for the relay and the host.
 */
export interface RelayAnswer {
  status: number;
  error: ProtocolError;
}

/** A pair request no pairing link here opens: expired or replaced, or nobody at this host id. */
export const NO_SUCH_PAIRING: RelayAnswer = {
  status: 410,
  error: protocolError(
    'pair-expired',
    'this pairing link leads to no computer now: it expired or was replaced, or the computer is not connected; show a new one at the computer with: tether pair',
  ),
};

/** A call nobody takes: no host at this id, or a host that does not know the device. */
export const NO_CALL_TAKER: RelayAnswer = {
  status: 503,
  error: protocolError('host-offline', 'no computer took this call: it is not connected, or does not know this device'),
};

/** Too many requests from one address range, whether the relay or the host counted them. */
export const RELAY_RATE_LIMITED: RelayAnswer = {
  status: 429,
  error: protocolError('rate-limited', 'too many requests from this address'),
};

/** The body of an answer, as both sides send it. */
export function relayAnswerBody(answer: RelayAnswer): Uint8Array {
  return utf8Encode(JSON.stringify({ error: answer.error }));
}

/**
 * The checks of a forwarded pair request that need no key: JSON, and the envelope's shape and
 * version. The relay makes them before it looks for the host; the host makes the same ones.
 */
export function decodePairRequestBytes(bytes: Uint8Array): Result<PairRequestEnvelope> {
  const json = parseJsonBytes(bytes);
  if (!json) return fail('pair-malformed', 'the body is not JSON');
  return decodePairRequestBody(json.value);
}
