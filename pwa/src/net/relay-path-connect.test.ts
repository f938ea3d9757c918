import type { SessionEvent, WebSocketLike } from '@tether/shared-protocol';
import {
  DeviceClient,
  decodeRelayFrame,
  encodeRelayTicket,
  generateBoxKeyPair,
  generateDeviceId,
  generateHostIdentity,
  memoryPipe,
  signRelayTicket,
  toBase64Url,
} from '@tether/shared-protocol';
import { FakeHost, ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { HostRecord } from '../data/records.js';
import { DIRECT_OPEN_TIMEOUT_MS, DIRECT_RETRY_MS, pathConnect } from './relay-path-connect.js';

const random = seededRandom('path connect');
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setTimeout(resolve, 0));
};

/**
 * A browser WebSocket stand-in on a little network: the host's own address answers while `up`,
 * and the relay passes a device through to the host once it has sent its connect request.
 */
function network(host: FakeHost, hostSignPublicKey: Uint8Array) {
  const net = {
    directUp: true,
    opened: [] as string[],
    connectRequests: 0,
    /** The relay the host is linked to (its wss:// origin); any relay when unset. */
    hostAt: undefined as string | undefined,
  };
  class NetSocket implements WebSocketLike {
    binaryType = 'blob';
    readyState = 0;
    onopen: ((event: unknown) => void) | null = null;
    onmessage: ((event: { data: unknown }) => void) | null = null;
    onclose: ((event: { code: number; reason: string }) => void) | null = null;
    onerror: ((event: unknown) => void) | null = null;
    private readonly peer;
    private readonly viaRelay: boolean;
    private connected = false;
    private hostHere = true;
    constructor(readonly url: string) {
      this.viaRelay = url.includes('/relay/connect/');
      const [mine, theirs] = memoryPipe();
      this.peer = mine;
      mine.onMessage = (data) =>
        this.onmessage?.({ data: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) });
      mine.onClose = ({ code, reason }) => {
        this.readyState = 3;
        this.onclose?.({ code, reason });
      };
      if (!this.viaRelay && !net.directUp) {
        // A LAN address that is not there: nothing answers (the caller's timeout ends it).
        return;
      }
      queueMicrotask(() => {
        this.readyState = 1;
        net.opened.push(url);
        host.accept(theirs);
        this.onopen?.({});
      });
    }
    send(data: Uint8Array): void {
      if (this.viaRelay && !this.connected) {
        const frame = decodeRelayFrame(data);
        if (!frame.ok || frame.value.type !== 'connect') throw new Error('expected a connect request first');
        expect(frame.value.hostSignPublicKey).toEqual(hostSignPublicKey);
        net.connectRequests++;
        this.connected = true;
        // A relay the host is not linked to takes the connection and closes it: host-offline.
        // (A task later, as from across a network: after the page has taken the socket.)
        if (net.hostAt !== undefined && !this.url.startsWith(`${net.hostAt}/`)) {
          this.hostHere = false;
          setTimeout(() => this.peer.close(4102, 'host-offline'), 0);
        }
        return;
      }
      if (this.hostHere) this.peer.send(data);
    }
    close(code?: number, reason?: string): void {
      this.peer.close(code, reason);
    }
  }
  return { net, NetSocket };
}

function setup(relays?: string[]) {
  const clock = new ManualClock();
  const identity = generateHostIdentity(random);
  const host = new FakeHost(identity.box, clock, random);
  const device = generateBoxKeyPair(random);
  const deviceId = generateDeviceId(random);
  host.devices.set(deviceId, device.publicKey);
  const record: HostRecord = {
    hostId: identity.hostId,
    name: 'laptop',
    apiBase: 'https://laptop.tail.ts.net:7420',
    relay: {
      url: 'https://relay.example.com',
      ticket: encodeRelayTicket(signRelayTicket({ deviceId, expiresAt: clock.now() + 60_000 }, identity.sign)),
      ...(relays ? { urls: relays } : {}),
    },
    deviceId,
    keyStorage: 'raw',
    deviceSecretKey: toBase64Url(device.secretKey),
    hostBoxPublicKey: toBase64Url(identity.box.publicKey),
    hostSignPublicKey: toBase64Url(identity.sign.publicKey),
    scopes: ['watch'],
    pairedAt: 0,
    lastSeenAt: null,
    recentFolders: [],
  };
  const { net, NetSocket } = network(host, identity.sign.publicKey);
  const connect = pathConnect({
    host: () => record,
    pageOrigin: 'https://laptop.tail.ts.net:7420',
    WebSocketImpl: NetSocket,
    clock,
  });
  const client = new DeviceClient({
    deviceId,
    deviceKeys: device,
    hostBoxPublicKey: identity.box.publicKey,
    connect,
    clock,
    random,
    jitter: () => 0,
  });
  return { clock, host, net, connect, client };
}

describe('reaching a host by the first path that works', () => {
  it('switches between direct and the relay with every session event delivered exactly once', async () => {
    const { clock, host, net, connect, client } = setup();
    const seen: SessionEvent[] = [];
    client.onEvent((e) => {
      if ('seq' in e) seen.push(e);
    });
    host.append('s1', 'one');
    client.start();
    client.watch('s1', 0);
    await settle();
    expect(connect.path.get().current).toBe('direct');
    expect(connect.path.get().plan.paths.map((p) => p.kind)).toEqual(['direct', 'relay']);
    host.append('s1', 'two');

    // The phone leaves home: the direct address stops answering, and the connection drops.
    net.directUp = false;
    host.dropAll();
    host.append('s1', 'three (while nobody was connected)');
    await settle();
    clock.advance(250); // the first reconnect
    await settle();
    clock.advance(DIRECT_OPEN_TIMEOUT_MS); // direct gives up; the relay is next
    await settle();
    expect(connect.path.get().current).toBe('relay');
    expect(net.connectRequests).toBe(1);
    host.append('s1', 'four');
    await settle();

    // A drop soon after goes to the relay first: the direct timeout is not paid every time.
    host.dropAll();
    await settle();
    clock.advance(250);
    await settle();
    expect(connect.path.get().current).toBe('relay');
    expect(net.connectRequests).toBe(2);

    // Home again, later: direct is tried first again, and taken.
    net.directUp = true;
    clock.advance(DIRECT_RETRY_MS);
    host.dropAll();
    host.append('s1', 'five');
    await settle();
    clock.advance(250);
    await settle();
    expect(connect.path.get().current).toBe('direct');
    host.append('s1', 'six');
    await settle();
    expect(seen.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    client.stop();
  });

  it('takes a direct address that closes before answering for a failed one, and goes to the relay', async () => {
    const { clock, host, connect, client } = setup();
    client.start();
    await settle();
    expect(connect.path.get().current).toBe('direct');
    // Something else now answers at the host's address and hangs up before a word.
    const accept = host.accept.bind(host);
    host.accept = (transport) => setTimeout(() => transport.close(1000, 'not a tether host'), 0);
    host.dropAll();
    await settle();
    clock.advance(250);
    await settle();
    host.accept = accept;
    for (let i = 0; i < 3 && connect.path.get().current !== 'relay'; i++) {
      clock.advance(1000);
      await settle();
    }
    expect(connect.path.get().current).toBe('relay');
    expect(client.state.name).toBe('open');
    client.stop();
  });

  it('tries the host’s relays in turn, and passes over one the host has left for the next', async () => {
    const { clock, host, net, connect, client } = setup(['https://relay.example.com', 'https://spare.example.net']);
    net.directUp = false;
    net.hostAt = 'wss://relay.example.com';
    client.start();
    await settle();
    clock.advance(DIRECT_OPEN_TIMEOUT_MS);
    await settle();
    expect(client.state.name).toBe('open');
    expect(net.opened.at(-1)).toMatch(/^wss:\/\/relay\.example\.com\/relay\/connect\//);

    // The host's relay goes down and the host moves to the spare: the first relay, still up,
    // takes the device and says host-offline; the next attempt goes to the spare first.
    net.hostAt = 'wss://spare.example.net';
    host.dropAll();
    for (let i = 0; i < 6 && !(client.state.name === 'open' && net.opened.at(-1)?.startsWith(net.hostAt)); i++) {
      clock.advance(1000);
      await settle();
    }
    expect(client.state.name).toBe('open');
    expect(net.opened.at(-1)).toMatch(/^wss:\/\/spare\.example\.net\/relay\/connect\//);
    expect(connect.path.get().current).toBe('relay');
    client.stop();
  });

  it('says why when the page can reach the host by no path at all', async () => {
    const clock = new ManualClock();
    const identity = generateHostIdentity(random);
    const record = {
      hostId: identity.hostId,
      hostSignPublicKey: toBase64Url(identity.sign.publicKey),
      apiBase: 'http://192.168.1.5:7420',
    } as HostRecord;
    const connect = pathConnect({
      host: () => record,
      pageOrigin: 'https://relay.example.com',
      WebSocketImpl: class {
        constructor() {
          throw new Error('no socket may be opened');
        }
      } as never,
      clock,
    });
    await expect(connect()).rejects.toThrow(/plain HTTP: browsers block that/);
    expect(connect.path.get().plan).toEqual({ paths: [], unreachable: 'mixed-content' });
  });
});
