import type { BoxKeyPair, ChannelMessage, DeviceInfo, Methods, Scope, TetherEvent } from '@tether/shared-protocol';
import {
  DeviceChannel,
  decodeEvent,
  generateBoxKeyPair,
  generateDeviceId,
  generateHostIdentity,
  memoryPipe,
} from '@tether/shared-protocol';
import { ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import type { MemoryTransport } from '@tether/shared-protocol';
import type { GatewayTransport, SharedPath } from '../../src/gateway/gateway-transport.js';
import { DeviceGateway } from '../../src/gateway/device-gateway.js';
import { OneShotHorizon } from '../../src/gateway/one-shot-horizon.js';
import type { Caller } from '../../src/rpc/caller.js';
import type { Handlers } from '../../src/rpc/dispatch.js';
import { openDatabase } from '../../src/store/database.js';
import { DeviceStore } from '../../src/store/device-store.js';
import { EventLog } from '../../src/store/event-log.js';
import { SessionStore } from '../../src/store/session-store.js';
import { ShareStore } from '../../src/store/share-store.js';
import { ShareLinks } from '../../src/share/share-links.js';

/** A host-side end of an in-memory pipe whose queued byte count the test sets. */
export interface TestTransport extends GatewayTransport {
  buffered: number;
  path?: SharedPath;
}

export function gatewayPipe(remoteAddress = '192.0.2.1'): { host: TestTransport; device: MemoryTransport } {
  const [hostEnd, device] = memoryPipe();
  const host: TestTransport = {
    remoteAddress,
    buffered: 0,
    get onMessage() {
      return hostEnd.onMessage;
    },
    set onMessage(handler) {
      hostEnd.onMessage = handler;
    },
    get onClose() {
      return hostEnd.onClose;
    },
    set onClose(handler) {
      hostEnd.onClose = handler;
    },
    send: (data) => hostEnd.send(data),
    close: (code, reason) => hostEnd.close(code, reason),
    bufferedAmount() {
      return host.buffered;
    },
  };
  return { host, device };
}

/** Lets queued microtasks and immediates run (the memory pipe delivers asynchronously). */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A device gateway in memory: a real event log and device store on an in-memory SQLite, a
 * manual clock, seeded randomness, and the method handlers the test gives it; share links too.
 */
export function gatewayHarness(handlers: Partial<Handlers<Methods, Caller>> = {}) {
  const clock = new ManualClock();
  const random = seededRandom('gateway');
  const db = openDatabase(':memory:');
  const log = new EventLog(db, clock);
  const sessions = new SessionStore(db);
  const devices = new DeviceStore(db);
  const identity = generateHostIdentity(random);
  const shares = new ShareLinks({
    store: new ShareStore(db),
    sessionExists: (id) => sessions.get(id) !== undefined,
    deviceIdTaken: (id) => devices.get(id) !== undefined,
    clock,
    random,
  });
  let ids = 0;
  const gateway = new DeviceGateway({
    shares,
    identity,
    devices,
    oneShotHorizon: new OneShotHorizon(db),
    approvableUnopened: () => true,
    log,
    clock,
    random,
    newId: (prefix) => `${prefix}${++ids}`,
    hostName: 'test host',
    onRequest: () => undefined,
    onWarning: () => undefined,
    handlers: () => handlers,
  });
  log.subscribe('gateway', (event) => gateway.publish(event));

  const session = (id: string) =>
    sessions.insert({
      id,
      title: id,
      kind: 'agent',
      place: 'local',
      cwd: '/',
      model: 'demo',
      status: 'idle',
      createdAt: clock.now(),
      updatedAt: clock.now(),
    });

  /** Pairs a device in the store and connects it over a fresh pipe (from `address`). */
  const connect = async (scopes: Scope[] = ['watch', 'approve', 'chat', 'terminal'], address?: string) => {
    const keys = generateBoxKeyPair(random);
    const device: DeviceInfo = devices.insert({
      id: generateDeviceId(random),
      publicKey: keys.publicKey,
      label: 'phone',
      scopes,
      createdAt: clock.now(),
    });
    return open(device, keys, address);
  };

  /** Connects as a share link's viewer, with the key its secret gives (by a shared way in, `path`). */
  const connectViewer = (linkId: string, keys: BoxKeyPair, address?: string, path?: SharedPath) =>
    open({ id: linkId } as DeviceInfo, keys, address, path);

  const open = async (device: DeviceInfo, keys: BoxKeyPair, address?: string, path?: SharedPath) => {
    const pipe = gatewayPipe(address);
    if (path) pipe.host.path = path;
    const accepted = gateway.accept(pipe.host);
    if (!accepted.ok) throw new Error(accepted.error.message);
    const opening = DeviceChannel.open(pipe.device, {
      deviceId: device.id,
      deviceKeys: keys,
      hostBoxPublicKey: identity.box.publicKey,
      clock,
      random,
    });
    const opened = await opening;
    if (!opened.ok) throw new Error(opened.error.message);
    const channel = opened.value;
    const received: ChannelMessage[] = [];
    let closed: string | undefined;
    channel.onMessage = (message) => received.push(message);
    channel.onClose = (error) => (closed = error.code);
    let nextId = 1;
    return {
      device,
      channel,
      connection: accepted.value,
      transport: pipe.host,
      received,
      closed: () => closed,
      /** Events received, decoded. */
      events: () =>
        received.flatMap((m): TetherEvent[] => {
          if (m.t !== 'evt') return [];
          const decoded = decodeEvent(m.event);
          return decoded.kind === 'event' ? [decoded.event] : [];
        }),
      request: async (method: string, params: unknown) => {
        const id = nextId++;
        channel.send({ t: 'req', id, method, params });
        for (let i = 0; i < 20; i++) {
          await settle();
          const answer = received.find((m) => m.t === 'res' && m.id === id);
          if (answer) return answer;
        }
        throw new Error(`no answer to ${method}`);
      },
    };
  };

  return { clock, random, log, sessions, devices, identity, gateway, shares, session, connect, connectViewer };
}
