import type { ErrorCode, LinkPeer, Result } from '@tether/shared-protocol';

/**
 * A live link to one machine, as the rest of the host sees it: send a request, send an event, hear
 * events and the end. The sealed WebSocket link provides one (`peerLink`); tests provide an
 * in-memory pair. Requests sent on a link that drops before their reply fail with `disconnected`.
 */
export interface MachineLink {
  request(method: string, params: unknown): Promise<Result<unknown>>;
  notify(event: unknown): boolean;
  readonly closed: boolean;
  /** Ends the link with a sealed goodbye the machine can believe (revoked, forgotten, replaced). */
  close(code: ErrorCode, message: string): void;
  onEvent(listener: (event: unknown) => void): void;
  onClose(listener: () => void): void;
}

/** A MachineLink over an open LinkPeer. */
export function peerLink(peer: LinkPeer): MachineLink {
  const listeners = new Set<(event: unknown) => void>();
  peer.onEvent = (event) => {
    for (const listener of listeners) listener(event);
  };
  return {
    request: (method, params) => peer.request(method, params),
    notify: (event) => peer.notify(event).ok,
    get closed() {
      return peer.closed;
    },
    close: (code, message) => peer.bye(code, message),
    onEvent: (listener) => void listeners.add(listener),
    onClose: (listener) => void peer.onClose(() => listener()),
  };
}
