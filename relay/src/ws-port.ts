import type { WebSocketLike } from '@hono/node-server';
import type { WSContext } from 'hono/ws';
import type { WebSocket } from 'ws';
import { closeOnce, wsWriter } from '@tether/shared-protocol';
import type { PeerPort } from './peer-port.js';

/**
 * A `ws` WebSocket (accepted through Hono's `upgradeWebSocket`) as a PeerPort. Hono delivers
 * messages and the close; the raw socket gives what Hono does not expose: write callbacks,
 * pause/resume, pings and pongs, and the parser's size cap.
 */
export function wsPort(ctx: WSContext<WebSocketLike>, source: string): PeerPort & WsEvents {
  const ws = ctx.raw as unknown as WebSocket;
  let tooLarge = false;
  // The parser refused a message over the cap: report it as such, whatever the socket says.
  const finish = closeOnce((code, reason) => port.onClose?.(tooLarge ? 1009 : code, reason));
  const port: PeerPort & WsEvents = {
    source,
    onMessage: null,
    onPong: null,
    onClose: null,
    ...wsWriter(ws),
    pause() {
      ws.pause();
    },
    resume() {
      ws.resume();
    },
    ping() {
      if (ws.readyState === ws.OPEN) ws.ping();
    },
    setMaxMessage(bytes) {
      setParserLimit(ws, bytes);
    },
    message(data) {
      if (typeof data === 'string') port.onMessage?.(new Uint8Array(0), false);
      else port.onMessage?.(new Uint8Array(data), true);
    },
    closed(code, reason) {
      finish(code, reason);
    },
  };
  ws.on('pong', () => port.onPong?.());
  ws.on('error', (error: Error & { code?: string }) => {
    if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') tooLarge = true;
    ws.terminate();
  });
  return port;
}

/** Hono's events for the socket, forwarded by the route to the port. */
export interface WsEvents {
  message(data: string | ArrayBuffer): void;
  closed(code: number, reason: string): void;
}

/**
 * Sets the size cap of `ws`'s frame parser for the messages that follow. `ws` takes one `maxPayload`
 * per server; the relay needs a small cap before authentication (so an unauthenticated client cannot
 * make it buffer a large message) and the frame cap after. The parser keeps the cap in a field that
 * is not part of `ws`'s API: its presence is checked here and a test fails if a `ws` update moves it.
 * Without it, the first-message size is still checked once the message has arrived.
 */
export function setParserLimit(ws: WebSocket, bytes: number): boolean {
  const receiver = (ws as unknown as { _receiver?: { _maxPayload?: unknown } })._receiver;
  if (!receiver || typeof receiver._maxPayload !== 'number') return false;
  receiver._maxPayload = bytes;
  return true;
}
