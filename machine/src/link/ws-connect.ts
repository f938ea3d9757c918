import type { Transport } from '@tether/shared-protocol';
import { LINK_FRAME_OVERHEAD, MAX_LINK_FRAME_PLAINTEXT, wsAdapter } from '@tether/shared-protocol';
import { WebSocket } from 'ws';

/** Milliseconds to open the WebSocket (TCP, TLS, upgrade) before the attempt counts as failed. */
const OPEN_TIMEOUT_MS = 15_000;

/** The WebSocket URL of a host's machine endpoint, from the URL a person gives (`http(s)://…`). */
export function machineSocketUrl(hostUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(hostUrl);
  } catch {
    return undefined;
  }
  if (url.protocol === 'http:' || url.protocol === 'ws:') url.protocol = 'ws:';
  else if (url.protocol === 'https:' || url.protocol === 'wss:') url.protocol = 'wss:';
  else return undefined;
  if (url.username || url.password) return undefined;
  url.pathname = '/machines/ws';
  url.search = '';
  url.hash = '';
  return url.toString();
}

/**
 * Opens a WebSocket to `url` as a link Transport. Binary messages only (text is not part of the
 * protocol: the socket is closed); messages are capped at a link frame (the `ws` default would be
 * 100 MiB). No Origin header is sent: the host refuses a browser's.
 */
export function wsConnect(url: string): Promise<Transport> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, {
      maxPayload: MAX_LINK_FRAME_PLAINTEXT + LINK_FRAME_OVERHEAD,
      perMessageDeflate: false,
      handshakeTimeout: OPEN_TIMEOUT_MS,
      // A zero masking key, which `ws` then skips on both ends. Masking guards proxies against
      // bytes a page's script chose; every message here is a sealed frame nobody on the path can
      // choose, and masking it in JavaScript cost a seventh of a 1 MiB read (bench machine).
      generateMask: (mask) => mask.fill(0),
    });
    let opened = false;
    const adapter = wsAdapter(socket, {
      message: (bytes) => transport.onMessage?.(bytes),
      text: () => socket.close(4004, 'binary only'),
      error: (error) => {
        if (!opened) reject(error);
        adapter.ended(1006, error.message);
      },
      closed: (code, reason) => transport.onClose?.({ code, reason }),
    });
    const transport: Transport = {
      onMessage: null,
      onClose: null,
      send: (data) => adapter.send(data),
      close: (code, reason) => adapter.close(code, reason),
    };
    socket.on('open', () => {
      opened = true;
      resolve(transport);
    });
    socket.on('unexpected-response', (_request, response) => {
      reject(new Error(`the host answered ${response.statusCode ?? '?'} ${response.statusMessage ?? ''}`.trim()));
      socket.terminate();
    });
  });
}
