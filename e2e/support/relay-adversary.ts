import type { RelayFrame } from '@tether/shared-protocol';
import { RelayFrameType, decodeRelayFrame, encodeRelayFrame } from '@tether/shared-protocol';
import type { ProxiedSocket } from './ws-proxy.js';
import { WsProxy } from './ws-proxy.js';

/** What a hostile relay does to each host link once it is `ready`. */
export type AfterReady = { drain: true } | { close: number; reason: string };

/**
 * A relay whose operator turns hostile: a proxy in front of a real relay node (started with
 * `--public-url` set to this proxy's URL, so hosts link through it as to any relay), which passes
 * everything on until told otherwise. Then it speaks for the relay: it closes host links with any
 * code, tells hosts to drain, does either right after every `ready`, or names another origin in its
 * challenges (a relay with a wrong `--public-url`). It counts the `ready`s it passed on: how often
 * hosts linked through it.
 */
export class RelayAdversary {
  /** When each `ready` passed to a host (ms since the epoch). */
  readonly readies: number[] = [];
  afterReady: AfterReady | undefined;
  /** Replaces the origin named in every challenge. */
  origin: string | undefined;

  private constructor(readonly proxy: WsProxy) {
    proxy.fromBackend = (socket, bytes) => this.fromRelay(socket, bytes);
  }

  /** A proxy not yet in front of anything: start the node with `--public-url` = `url`, then `front` it. */
  static async start(): Promise<RelayAdversary> {
    return new RelayAdversary(await WsProxy.start(0));
  }

  get url(): string {
    return this.proxy.url;
  }

  front(nodePort: number): void {
    this.proxy.backendPort = nodePort;
  }

  /** Host links carried now that have had their `ready`. */
  get hostLinks(): ProxiedSocket[] {
    return [...this.proxy.sockets].filter((s) => s.path === '/relay/host' && s.marks.has('ready'));
  }

  /** Closes every linked host with `code`: what the host hears is this relay's word. */
  closeHosts(code: number, reason: string): number {
    const links = this.hostLinks;
    for (const link of links) this.proxy.closeClient(link, code, reason);
    return links.length;
  }

  /** Tells every linked host to link again elsewhere. */
  drainHosts(): number {
    const links = this.hostLinks;
    for (const link of links) this.proxy.sendToClient(link, frame({ type: 'drain' }));
    return links.length;
  }

  /** `ready`s passed on in the last `ms`. */
  readiesWithin(ms: number, now = Date.now()): number {
    return this.readies.filter((at) => at > now - ms).length;
  }

  stop(): Promise<void> {
    return this.proxy.stop();
  }

  private fromRelay(socket: ProxiedSocket, bytes: Uint8Array): Uint8Array | null | undefined {
    if (socket.path !== '/relay/host' || bytes[1] === RelayFrameType.Data) return undefined;
    const decoded = decodeRelayFrame(bytes);
    if (!decoded.ok) return undefined;
    const f = decoded.value;
    if (f.type === 'challenge' && this.origin !== undefined) return frame({ ...f, origin: this.origin });
    if (f.type !== 'ready') return undefined;
    socket.marks.add('ready');
    this.readies.push(Date.now());
    const after = this.afterReady;
    if (after) {
      // After the `ready` itself has gone: the host is linked when it hears this.
      setImmediate(() => {
        if ('drain' in after) this.proxy.sendToClient(socket, frame({ type: 'drain' }));
        else this.proxy.closeClient(socket, after.close, after.reason);
      });
    }
    return undefined;
  }
}

function frame(f: RelayFrame): Uint8Array {
  const bytes = encodeRelayFrame(f);
  if (!bytes.ok) throw new Error(bytes.error.message);
  return bytes.value;
}
