import type { PairReplyBody, ProtocolError, RelayAnswer, Result } from '@tether/shared-protocol';
import {
  NO_CALL_TAKER,
  RELAY_RATE_LIMITED,
  httpStatusFor,
  parseJsonBytes,
  relayAnswerBody,
  utf8Encode,
} from '@tether/shared-protocol';
import type { PairChannel } from '../gateway/pairing-service.js';
import type { HostCounters as Counters } from '../stats/host-counters.js';

/** The part of the device gateway a relay link hands pair requests and one-shot calls to. */
export interface RequestGateway {
  pair(body: unknown, source: string, signal: AbortSignal, channel: PairChannel): Promise<Result<PairReplyBody>>;
  call(body: Uint8Array, source: string): Promise<Result<Uint8Array>>;
  readonly stats: Counters;
}

export interface RelayReply {
  status: number;
  body: Uint8Array;
}

function errorReply(error: ProtocolError): RelayReply {
  return { status: httpStatusFor(error.code), body: utf8Encode(JSON.stringify({ error })) };
}

function answerReply(answer: RelayAnswer): RelayReply {
  return { status: answer.status, body: relayAnswerBody(answer) };
}

/**
 * A pair request the relay forwarded (`POST /relay/pair/:hostId`): the same JSON body and the same
 * answer as the host's own `POST /rc/pair`, so the app pairs alike by either path, except where a
 * stranger could tell this host from no host: a request under a link this host does not hold gets
 * the answer a relay gives for a host it does not have (the pairing service already answers with
 * it, before its rate limit), and a request under the current link past this host's own rate
 * limit reads as the relay's limit. This is the one place the relay path asks the gateway to pair.
 */
export async function answerPairRequest(
  gateway: RequestGateway,
  bytes: Uint8Array,
  source: string,
  signal: AbortSignal,
  channel: PairChannel,
): Promise<RelayReply> {
  const body = parseJsonBytes(bytes);
  if (!body) {
    gateway.stats.add('relay:pair:bad-json');
    return errorReply({ code: 'pair-malformed', message: 'the body is not JSON' });
  }
  const result = await gateway.pair(body.value, source, signal, channel);
  if (!result.ok) {
    gateway.stats.add(`pair:${result.error.code}`);
    return result.error.code === 'rate-limited' ? answerReply(RELAY_RATE_LIMITED) : errorReply(result.error);
  }
  gateway.stats.add('pair:allowed');
  return { status: 200, body: utf8Encode(JSON.stringify(result.value)) };
}

/**
 * A one-shot call the relay forwarded (`POST /relay/call/:hostId`): the sealed reply, or an error.
 * A call that does not authenticate (an unknown or revoked device, a box that does not open) gets
 * the answer a relay gives for a host it does not have; only a paired device learns more.
 */
export async function answerCall(gateway: RequestGateway, body: Uint8Array, source: string): Promise<RelayReply> {
  const result = await gateway.call(body, source);
  if (result.ok) return { status: 200, body: result.value };
  return result.error.code === 'handshake-failed' ? answerReply(NO_CALL_TAKER) : errorReply(result.error);
}
