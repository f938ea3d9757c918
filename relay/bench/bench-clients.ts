// Lean relay clients for the bench: counters instead of recordings, written against
// shared-protocol's relay formats only.
import type { HostIdentity } from '@tether/shared-protocol';
import {
  answerRelayChallenge,
  decodeRelayFrame,
  encodeConnectRequest,
  encodeRelayData,
  encodeRelayFrame,
  generateDeviceId,
  relayConnectUrl,
  relayHostLinkUrl,
  signRelayTicket,
  systemClock,
} from '@tether/shared-protocol';
import { WebSocket } from 'ws';

/** Opens a WebSocket, from `localAddress` when given (a loopback address other than 127.0.0.1). */
export function openWs(url: string, localAddress?: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, ...(localAddress ? { localAddress } : {}) });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const bytesOf = (data: unknown) => {
  const b = data as Buffer;
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};

export class BenchHost {
  received = 0;
  opens = 0;
  private waiters: (() => void)[] = [];

  private constructor(
    readonly ws: WebSocket,
    private readonly echo: boolean | ((payload: Uint8Array) => Uint8Array),
  ) {}

  /** With `echo`, every device's data goes back to it: as it came, or what the function makes of it. */
  static async connect(
    relayUrl: string,
    identity: HostIdentity,
    options: { echo: boolean | ((payload: Uint8Array) => Uint8Array); localAddress?: string },
  ): Promise<BenchHost> {
    // Listen before the socket opens: the challenge can arrive with the upgrade response itself.
    const ws = new WebSocket(relayHostLinkUrl(relayUrl)!, {
      perMessageDeflate: false,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    const host = new BenchHost(ws, options.echo);
    await new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.on('message', (data) => {
        const bytes = bytesOf(data);
        const f = decodeRelayFrame(bytes);
        if (!f.ok) return reject(new Error(f.error.message));
        switch (f.value.type) {
          case 'challenge': {
            const answer = answerRelayChallenge(bytes, identity.sign, { relayUrl, clock: systemClock });
            if (!answer.ok) return reject(new Error(answer.error.message));
            return ws.send(answer.value);
          }
          case 'ready':
            return resolve();
          case 'open':
            host.opens++;
            for (const w of host.waiters.splice(0)) w();
            return;
          case 'data':
            host.received++;
            if (host.echo) {
              const payload = host.echo === true ? f.value.payload : host.echo(f.value.payload);
              const back = encodeRelayData(f.value.connId, payload);
              if (back.ok) ws.send(back.value);
            }
            return;
          case 'ping': {
            const pong = encodeRelayFrame({ type: 'pong', nonce: f.value.nonce });
            if (pong.ok) ws.send(pong.value);
            return;
          }
          default:
            return;
        }
      });
      ws.once('close', (code) => reject(new Error(`host link closed ${code}`)));
    });
    return host;
  }

  /** Resolves once `n` device connections have been opened on this link. */
  async opened(n: number): Promise<void> {
    while (this.opens < n) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

export class BenchDevice {
  private constructor(readonly ws: WebSocket) {}

  /** A ticket for a new device of `identity` (signing one costs milliseconds: share it among many). */
  static ticket(identity: HostIdentity): Uint8Array {
    return signRelayTicket({ deviceId: generateDeviceId(), expiresAt: Date.now() + 3_600_000 }, identity.sign);
  }

  static async connect(
    relayUrl: string,
    identity: HostIdentity,
    ticket = BenchDevice.ticket(identity),
    localAddress?: string,
  ): Promise<BenchDevice> {
    const ws = await openWs(relayConnectUrl(relayUrl, identity.hostId)!, localAddress);
    const first = encodeConnectRequest(identity.sign.publicKey, ticket);
    if (!first.ok) throw new Error(first.error.message);
    ws.send(first.value);
    return new BenchDevice(ws);
  }
}
