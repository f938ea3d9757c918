import type { HostIdentity, RelayFrame } from '@tether/shared-protocol';
import {
  answerRelayChallenge,
  decodeRelayFrame,
  encodeConnectRequest,
  encodeRelayFrame,
  generateBoxKeyPair,
  generateDeviceId,
  PROTOCOL_VERSION,
  relayConnectUrl,
  relayHostLinkUrl,
  sealCall,
  secureRandom,
  signRelayTicket,
  systemClock,
  toBase64Url,
} from '@tether/shared-protocol';
import { WebSocket } from 'ws';

/**
 * Test clients written only against shared-protocol's relay formats, over real WebSockets: what
 * the host's relay link and the app will do, without their code.
 */

export interface Closed {
  code: number;
  reason: string;
}

/** Resolves when `check` holds, polling; rejects after `ms` with `what`. For integration tests,
 * where events cross real sockets; never used to assert how long something took. */
export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function opened(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (req, res) => {
      req.destroy();
      reject(new Error(`HTTP ${res.statusCode}`));
    });
  });
}

const toBytes = (data: unknown) => {
  const b = data as Buffer;
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};

/** A host's relay link: answers the challenge, then records and answers what the relay sends. */
export class FakeHost {
  /** The WebSocket class to dial with (a test may pass one that trusts its own certificate). */
  static WebSocketImpl: new (url: string) => WebSocket = WebSocket;
  readonly frames: RelayFrame[] = [];
  readonly conns = new Map<number, { deviceId: string; source: string; data: Uint8Array[]; closed?: Closed }>();
  closed: Closed | undefined;
  /** Send every device's bytes straight back. */
  echo = false;
  /** Answer pair requests and calls with this (status, body); none by default. */
  answer: ((f: Extract<RelayFrame, { type: 'pair-request' | 'call-request' }>) => [number, Uint8Array]) | undefined;

  private constructor(
    readonly ws: WebSocket,
    readonly identity: HostIdentity,
  ) {
    ws.on('message', (data) => this.receive(toBytes(data)));
    ws.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
  }

  static async connect(relayUrl: string, identity: HostIdentity): Promise<FakeHost> {
    const ws = new FakeHost.WebSocketImpl(relayHostLinkUrl(relayUrl)!);
    const host = new FakeHost(ws, identity);
    const ready = new Promise<void>((resolve, reject) => {
      ws.on('message', function onMessage(data) {
        const f = decodeRelayFrame(toBytes(data));
        if (f.ok && f.value.type === 'challenge') {
          const answer = answerRelayChallenge(toBytes(data), identity.sign, { relayUrl, clock: systemClock });
          if (!answer.ok) return reject(new Error(answer.error.message));
          ws.send(answer.value);
        } else if (f.ok && f.value.type === 'ready') {
          ws.off('message', onMessage);
          resolve();
        }
      });
      ws.once('close', (code, reason) => reject(new Error(`closed ${code} ${reason.toString()}`)));
    });
    await opened(ws);
    await ready;
    return host;
  }

  send(frame: RelayFrame): void {
    const bytes = encodeRelayFrame(frame);
    if (!bytes.ok) throw new Error(bytes.error.message);
    this.ws.send(bytes.value);
  }

  /** Everything received on one connection so far, joined. */
  received(connId: number): Uint8Array[] {
    return this.conns.get(connId)?.data ?? [];
  }

  /** The connection opened most recently. */
  get lastConn(): number {
    return [...this.conns.keys()].at(-1) ?? -1;
  }

  close(): void {
    this.ws.close();
  }

  private receive(bytes: Uint8Array): void {
    const decoded = decodeRelayFrame(bytes);
    if (!decoded.ok) throw new Error(`host got a bad frame: ${decoded.error.message}`);
    const f = decoded.value;
    this.frames.push(f);
    switch (f.type) {
      case 'open':
        this.conns.set(f.connId, { deviceId: f.deviceId, source: f.source, data: [] });
        return;
      case 'data':
        this.conns.get(f.connId)?.data.push(f.payload.slice());
        if (this.echo) this.send({ type: 'data', connId: f.connId, payload: f.payload });
        return;
      case 'close': {
        const conn = this.conns.get(f.connId);
        if (conn) conn.closed = { code: f.code, reason: f.reason };
        return;
      }
      case 'ping':
        return this.send({ type: 'pong', nonce: f.nonce });
      case 'pair-request':
      case 'call-request':
        if (this.answer) {
          const [status, body] = this.answer(f);
          this.send({ type: 'reply', reqId: f.reqId, status, body });
        }
        return;
      default:
        return;
    }
  }
}

/** A device's connection through the relay: connect request first, then opaque bytes. */
export class FakeDevice {
  readonly received: Uint8Array[] = [];
  closed: Closed | undefined;
  readonly done: Promise<Closed>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.received.push(toBytes(data).slice()));
    this.done = new Promise((resolve) =>
      ws.on('close', (code, reason) => {
        this.closed = { code, reason: reason.toString() };
        resolve(this.closed);
      }),
    );
  }

  /** Connects with the given first message (a connect request, or anything a test wants to try). */
  static async connectRaw(relayUrl: string, hostId: string, first: Uint8Array): Promise<FakeDevice> {
    const ws = new WebSocket(relayConnectUrl(relayUrl, hostId)!);
    const device = new FakeDevice(ws);
    await opened(ws);
    ws.send(first);
    return device;
  }

  /** Connects with a fresh, valid ticket from `identity`. */
  static async connect(relayUrl: string, identity: HostIdentity, deviceId = generateDeviceId()): Promise<FakeDevice> {
    const ticket = signRelayTicket({ deviceId, expiresAt: Date.now() + 60_000 }, identity.sign);
    const first = encodeConnectRequest(identity.sign.publicKey, ticket);
    if (!first.ok) throw new Error(first.error.message);
    return FakeDevice.connectRaw(relayUrl, identity.hostId, first.value);
  }

  send(bytes: Uint8Array): void {
    this.ws.send(bytes);
  }

  close(): void {
    this.ws.close();
  }
}

/**
 * A pair request and a one-shot call that are well formed but open nowhere: what someone who
 * knows a host id, and nothing else, can send. Each call is fresh.
 */
export function wellFormedStrangers(): { pair: string; call: () => Uint8Array } {
  const pair = JSON.stringify({
    v: PROTOCOL_VERSION,
    pairingId: toBase64Url(secureRandom(16)),
    nonce: toBase64Url(secureRandom(24)),
    box: toBase64Url(secureRandom(48)),
  });
  const call = () =>
    sealCall(
      {
        deviceId: generateDeviceId(secureRandom),
        deviceKeys: generateBoxKeyPair(),
        hostBoxPublicKey: generateBoxKeyPair().publicKey,
        clock: systemClock,
        random: secureRandom,
      },
      Uint8Array.of(1, 2, 3),
    ).message;
  return { pair, call };
}
