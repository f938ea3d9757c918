import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';

/**
 * A message transport the client runs over: a WebSocket in a browser or Node, an in-memory pipe
 * in tests, or a relay link. Binary messages only; the transport does no framing of its own.
 */
export interface Transport {
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onMessage: ((data: Uint8Array) => void) | null;
  /** Called once, when the transport is closed by either side or fails. */
  onClose: ((info: CloseInfo) => void) | null;
}

export interface CloseInfo {
  code: number;
  reason: string;
}

/** Opens a fresh transport; rejects when it cannot be opened. */
export type Connect = () => Promise<Transport>;

/** The part of the WHATWG WebSocket the client needs; browsers and the `ws` package provide it. */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/**
 * How long (ms) a dial may stay unopened. A socket whose connection neither opens nor fails (a
 * network that drops packets, an engine holding the dial back) would otherwise keep the client
 * from ever trying again until the system gives up, minutes later.
 */
export const OPEN_TIMEOUT_MS = 10_000;

/** A Connect that opens a WebSocket to `url` with the given constructor. */
export function webSocketConnect(
  url: string,
  WebSocketImpl: WebSocketConstructor,
  options: { clock?: Clock; openTimeoutMs?: number } = {},
): Connect {
  const clock = options.clock ?? systemClock;
  return () =>
    new Promise<Transport>((resolve, reject) => {
      const socket = new WebSocketImpl(url);
      socket.binaryType = 'arraybuffer';
      let opened = false;
      let failed = false;
      const deadline = clock.setTimeout(() => {
        failed = true;
        socket.close();
        reject(new Error('the connection did not open in time'));
      }, options.openTimeoutMs ?? OPEN_TIMEOUT_MS);
      const transport: Transport = {
        send: (data) => socket.send(data),
        close: (code, reason) => socket.close(code, reason),
        onMessage: null,
        onClose: null,
      };
      socket.onopen = () => {
        clock.clearTimeout(deadline);
        if (failed) return;
        opened = true;
        resolve(transport);
      };
      socket.onmessage = (event) => {
        const data = event.data;
        if (data instanceof ArrayBuffer) transport.onMessage?.(new Uint8Array(data));
        else if (data instanceof Uint8Array) transport.onMessage?.(data);
        // Text messages are not part of the protocol: ignored.
      };
      socket.onclose = (event) => {
        clock.clearTimeout(deadline);
        if (failed) return;
        if (!opened) reject(new Error(`connection failed (${event.code})`));
        else transport.onClose?.({ code: event.code, reason: event.reason });
      };
      socket.onerror = () => {
        // onclose follows; it carries the code.
      };
    });
}
