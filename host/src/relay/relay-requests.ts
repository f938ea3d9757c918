import type { PairReplyBody, ProtocolError, Result } from '@tether/shared-protocol';
import { utf8Decode, utf8Encode } from '@tether/shared-protocol';
import type { PairChannel } from '../gateway/pairing-service.js';
import type { Counters } from '../gateway/stats.js';
import { httpStatusFor } from '../remote/http-app.js';

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

/**
 * A pair request the relay forwarded (`POST /relay/pair/:hostId`): the same JSON body and the same
 * answer as the host's own `POST /rc/pair`, so the app pairs alike by either path. This is the one
 * place the relay path asks the gateway to pair (a relay origin is always a secure context).
 */
export async function answerPairRequest(
  gateway: RequestGateway,
  bytes: Uint8Array,
  source: string,
  signal: AbortSignal,
): Promise<RelayReply> {
  const text = utf8Decode(bytes);
  let body: unknown;
  try {
    body = text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    body = undefined;
  }
  if (body === undefined) {
    gateway.stats.add('relay:pair:bad-json');
    return errorReply({ code: 'pair-malformed', message: 'the body is not JSON' });
  }
  // A relay is reached over HTTPS (or loopback): the page the phone paired from is the relay's own.
  const result = await gateway.pair(body, source, signal, { secure: true });
  if (!result.ok) {
    gateway.stats.add(`pair:${result.error.code}`);
    return errorReply(result.error);
  }
  gateway.stats.add('pair:allowed');
  return { status: 200, body: utf8Encode(JSON.stringify(result.value)) };
}

/** A one-shot call the relay forwarded (`POST /relay/call/:hostId`): the sealed reply, or an error. */
export async function answerCall(gateway: RequestGateway, body: Uint8Array, source: string): Promise<RelayReply> {
  const result = await gateway.call(body, source);
  return result.ok ? { status: 200, body: result.value } : errorReply(result.error);
}
