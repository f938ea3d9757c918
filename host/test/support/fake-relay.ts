import type { Clock, CloseInfo, RandomBytes, RelayFrame, Transport } from '@tether/shared-protocol';
import {
  RELAY_MAX_PAYLOAD,
  decodeRelayFrame,
  encodeRelayFrame,
  makeRelayChallenge,
  verifyHostAuth,
} from '@tether/shared-protocol';
import type { DialRelay, LinkSocket } from '../../src/relay/link-socket.js';

/**
 * The relay's side of a host link, in memory and written only against shared-protocol's relay
 * formats: it challenges, checks the answer, says `ready`, and lets a test open device connections
 * on the link, forward pair requests and calls, and close it as a relay would.
 */
export class FakeRelay {
  readonly sockets: FakeLinkSocket[] = [];
  /** The origin the relay names in its challenges. */
  origin = 'https://relay.test';
  /** Added to the clock for the challenge's time (a relay whose clock is off). */
  skewMs = 0;
  /** A relay that is not there: every dial closes at once (1006), as a refused connection does. */
  down = false;
  /** What it says it serves after `ready` (`about`); undefined: it says nothing (an older relay). */
  servesApp: boolean | undefined = true;

  constructor(
    private readonly clock: Clock,
    private readonly random: RandomBytes,
  ) {}

  readonly dial: DialRelay = (url) => {
    const socket = new FakeLinkSocket(url);
    this.sockets.push(socket);
    if (this.down) {
      queueMicrotask(() => socket.relayCloses(1006, ''));
      return socket;
    }
    const challenge = makeRelayChallenge({
      origin: this.origin,
      clock: { now: () => this.clock.now() + this.skewMs },
      random: this.random,
    });
    if (!challenge.ok) throw new Error(challenge.error.message);
    socket.challenge = challenge.value;
    socket.servesApp = this.servesApp;
    queueMicrotask(() => socket.fromRelay(challenge.value));
    return socket;
  };

  /** The socket dialled last. */
  get current(): FakeLinkSocket {
    const socket = this.sockets.at(-1);
    if (!socket) throw new Error('the host has not dialled');
    return socket;
  }
}

export class FakeLinkSocket implements LinkSocket {
  onOpen: (() => void) | null = null;
  onMessage: ((bytes: Uint8Array) => void) | null = null;
  onClose: ((code: number, reason: string) => void) | null = null;
  challenge: Uint8Array | undefined;
  servesApp: boolean | undefined;
  /** Every frame the host sent, decoded. */
  readonly frames: RelayFrame[] = [];
  /** The host's proven id, once it answered. */
  hostId: string | undefined;
  closedWith: CloseInfo | undefined;
  /** When false, writes stay "in the socket" until `flush` (a slow network). */
  writesComplete = true;
  private readonly held: (() => void)[] = [];
  private readonly devices = new Map<number, Transport & { received: Uint8Array[] }>();
  private nextReq = 1;
  private readonly replies = new Map<number, (frame: Extract<RelayFrame, { type: 'reply' }>) => void>();

  constructor(readonly url: string) {}

  send(bytes: Uint8Array, done: () => void): void {
    if (this.writesComplete) queueMicrotask(done);
    else this.held.push(done);
    if (this.closedWith) return;
    if (!this.hostId) {
      const verified = verifyHostAuth(this.challenge!, bytes);
      if (!verified.ok) return this.relayCloses(4105, 'auth-failed');
      this.hostId = verified.value.hostId;
      this.frames.push({ type: 'auth', signPublicKey: verified.value.signPublicKey, signature: new Uint8Array(64) });
      this.fromRelay({ type: 'ready', hostId: this.hostId, maxConnections: 64, maxPayload: RELAY_MAX_PAYLOAD });
      if (this.servesApp !== undefined) this.fromRelay({ type: 'about', servesApp: this.servesApp });
      return;
    }
    const decoded = decodeRelayFrame(bytes.slice());
    if (!decoded.ok) throw new Error(`the host sent a bad frame: ${decoded.error.message}`);
    const frame = decoded.value;
    this.frames.push(frame);
    if (frame.type === 'data') {
      const device = this.devices.get(frame.connId);
      if (device) {
        device.received.push(frame.payload);
        const payload = frame.payload;
        queueMicrotask(() => device.onMessage?.(payload));
      }
    } else if (frame.type === 'close') {
      const device = this.devices.get(frame.connId);
      this.devices.delete(frame.connId);
      if (device) queueMicrotask(() => device.onClose?.({ code: frame.code, reason: frame.reason }));
    } else if (frame.type === 'reply') {
      this.replies.get(frame.reqId)?.(frame);
      this.replies.delete(frame.reqId);
    }
  }

  /** Completes every write held by `writesComplete = false`. */
  flush(): void {
    for (const done of this.held.splice(0)) done();
  }

  close(code: number, reason: string): void {
    if (this.closedWith) return;
    this.closedWith = { code, reason };
  }

  terminate(): void {
    this.close(1006, 'terminated');
  }

  /** A message from the relay to the host. */
  fromRelay(frame: RelayFrame | Uint8Array): void {
    if (this.closedWith) return;
    const bytes = frame instanceof Uint8Array ? frame : encodeRelayFrame(frame);
    if (!(bytes instanceof Uint8Array) && !bytes.ok) throw new Error(bytes.error.message);
    this.onMessage?.(bytes instanceof Uint8Array ? bytes : bytes.value);
  }

  /** The relay closes the link (or the network drops it). */
  relayCloses(code: number, reason: string): void {
    if (this.closedWith) return;
    this.closedWith = { code, reason };
    for (const device of this.devices.values())
      queueMicrotask(() => device.onClose?.({ code: 4103, reason: 'host-gone' }));
    this.devices.clear();
    this.onClose?.(code, reason);
  }

  /** Opens a device connection on the link; the returned transport is the device's end. */
  openDevice(connId: number, deviceId: string, source = '203.0.113.7'): Transport & { received: Uint8Array[] } {
    const device: Transport & { received: Uint8Array[] } = {
      received: [],
      onMessage: null,
      onClose: null,
      send: (data) => this.fromRelay({ type: 'data', connId, payload: data }),
      close: (code = 1000, reason = '') => {
        if (!this.devices.delete(connId)) return;
        this.fromRelay({ type: 'close', connId, code, reason });
        queueMicrotask(() => device.onClose?.({ code, reason }));
      },
    };
    this.devices.set(connId, device);
    this.fromRelay({ type: 'open', connId, kind: 'device', deviceId, source });
    return device;
  }

  /** Forwards a pair request or a call; resolves with the host's reply. */
  request(
    type: 'pair-request' | 'call-request',
    body: Uint8Array,
    source = '203.0.113.7',
  ): Promise<Extract<RelayFrame, { type: 'reply' }>> {
    const reqId = this.nextReq++;
    return new Promise((resolve) => {
      this.replies.set(reqId, resolve);
      this.fromRelay({ type, reqId, source, body });
    });
  }
}
