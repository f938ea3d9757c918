import type { BoxKeyPair, PairReply, WebSocketConstructor } from '@tether/shared-protocol';
import {
  DeviceClient,
  fromBase64UrlExact,
  generateBoxKeyPair,
  parsePairingLink,
  relayConnect,
  relayPairUrl,
  pairWithHost,
} from '@tether/shared-protocol';
import { WebSocket } from 'ws';
import type { HostProcess } from './host-process.js';
import { postPairBody } from './pair-client.js';
import { tether } from './host-process.js';

/**
 * A Node device that reaches a host only through a relay, written against shared-protocol alone:
 * it pairs with `POST /relay/pair/:hostId` and connects with `WS /relay/connect/:hostId`.
 */
export interface RelayPaired {
  keys: BoxKeyPair;
  reply: PairReply;
}

/**
 * Pairs through the relay named in `link`'s hint, allowing the request at the computer: with chat
 * and terminals too, as the person who runs the relay would (`run-it-myself`, the default), or
 * with what a request from a relay's page gets when allowed without choosing (`default`).
 */
export async function pairThroughRelay(
  link: string,
  host: HostProcess,
  label = 'relay e2e client',
  relayUrl?: string,
  allow: 'run-it-myself' | 'default' = 'run-it-myself',
): Promise<RelayPaired> {
  const parsed = parsePairingLink(link);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const hint = parsed.value.relay;
  if (!hint) throw new Error('the link names no relay');
  const keys = generateBoxKeyPair();
  const seen = new Set(host.lines.filter((l) => l.event === 'pair.request').map((l) => String(l.id)));
  const url = relayPairUrl(relayUrl ?? hint.url, hint.hostId)!;
  const pairing = pairWithHost({
    link: parsed.value,
    devicePublicKey: keys.publicKey,
    label,
    onCode: () => undefined,
    post: postPairBody(url),
  });
  const request = await host.waitFor((l) => l.event === 'pair.request' && !seen.has(String(l.id)));
  // The app came from the relay's page (its pair request came through the relay): by default such
  // a device may only watch and approve. These tests run their own relay, so they allow more, as
  // the person at the computer who runs that relay would.
  const page = request.page as { from?: string; origin?: string } | undefined;
  if (page?.from !== 'relay' || JSON.stringify(request.scopes) !== '["watch","approve"]') {
    throw new Error(
      `a pair request through the relay should name it and offer watch,approve: ${JSON.stringify(request)}`,
    );
  }
  const allowed = await tether(host.dataDir, [
    'pair',
    'allow',
    String(request.id),
    ...(allow === 'run-it-myself' ? ['--scopes', 'watch,approve,chat,terminal'] : []),
  ]);
  if (allowed.code !== 0) throw new Error(`tether pair allow failed: ${allowed.stderr}`);
  const reply = await pairing;
  if (!reply.ok) throw new Error(reply.error.message);
  if (!reply.value.relay) throw new Error('the pair reply carries no relay ticket');
  return { keys, reply: reply.value };
}

/** A DeviceClient through `relayUrl`; every socket it opens is pushed to `sockets`. */
export function relayClient(relayUrl: string, paired: RelayPaired, sockets: WebSocket[] = []): DeviceClient {
  class TrackedWebSocket extends WebSocket {
    constructor(url: string) {
      super(url);
      sockets.push(this);
    }
  }
  const { reply, keys } = paired;
  return new DeviceClient({
    deviceId: reply.deviceId,
    deviceKeys: keys,
    hostBoxPublicKey: fromBase64UrlExact(reply.hostBoxPublicKey, 32)!,
    connect: relayConnect({
      relayUrl,
      hostId: reply.hostId,
      hostSignPublicKey: fromBase64UrlExact(reply.hostSignPublicKey, 32)!,
      ticket: () => reply.relay!.ticket,
      WebSocketImpl: TrackedWebSocket as unknown as WebSocketConstructor,
    }),
    backoff: { baseMs: 50, maxMs: 500 },
  });
}
