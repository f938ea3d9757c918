import type { Connect, WebSocketConstructor } from '../link/transport.js';
import { webSocketConnect } from '../link/transport.js';
import { encodeConnectRequest, relayConnectUrl } from './relay-urls.js';

export interface RelayConnectOptions {
  /** The relay's base URL (`https://relay.example.com`): for the app, the origin it was loaded from. */
  relayUrl: string;
  hostId: string;
  /** The host's Ed25519 public key, learnt at pairing: the relay checks the ticket against it. */
  hostSignPublicKey: Uint8Array;
  /** The device's current ticket (base64url), read at each attempt so a renewed one is used next. */
  ticket: () => string;
  WebSocketImpl: WebSocketConstructor;
}

/**
 * A Connect that reaches a host through a relay: opens `WS /relay/connect/:hostId`, sends the
 * connect request (host key and ticket) as the first message, and hands back the socket. From then
 * on the relay passes every message through unchanged, so the handshake and the sealed channel on
 * top are exactly those of a direct connection. A ticket the relay refuses closes the socket
 * (4100, 4101) with the reason as a stable code, which the channel reports.
 */
export function relayConnect(options: RelayConnectOptions): Connect {
  return async () => {
    const url = relayConnectUrl(options.relayUrl, options.hostId);
    if (!url) throw new Error(`not a relay URL: ${options.relayUrl}`);
    const first = encodeConnectRequest(options.hostSignPublicKey, options.ticket());
    if (!first.ok) throw new Error(`the relay ticket cannot be used: ${first.error.message}`);
    const transport = await webSocketConnect(url, options.WebSocketImpl)();
    transport.send(first.value);
    return transport;
  };
}
