import type { Connect } from '@tether/shared-protocol';
import {
  generateBoxKeyPair,
  generateHostIdentity,
  memoryPipe,
  systemClock,
  toBase64Url,
} from '@tether/shared-protocol';
import { FakeHost, ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AppDb } from '../data/app-db.js';
import type { IdbStandIn } from '../data/idb-stand-in.js';
import { installIdbStandIn } from '../data/idb-stand-in.js';
import type { HostRecord, OutboxRecord } from '../data/records.js';
import { failedWrites, storageHealth } from '../data/storage-health.js';
import { MemoryCache } from '../net/cache-port.js';
import { MemoryOutboxStore } from '../net/outbox.js';
import { makeDeviceKey } from '../net/device-key.js';
import type { AppModelDeps } from './app-model.js';
import { AppModel, HOSTS_STALL_MS } from './app-model.js';

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setTimeout(resolve, 0));
};

class MemoryDb extends MemoryCache {
  readonly rows = new Map<string, HostRecord>();
  readonly health = storageHealth();
  hosts() {
    return Promise.resolve([...this.rows.values()].map((r) => structuredClone(r)));
  }
  putHost(host: HostRecord) {
    this.rows.set(host.hostId, structuredClone(host));
    return Promise.resolve(true);
  }
  deleteHost(hostId: string) {
    this.rows.delete(hostId);
    return Promise.resolve(true);
  }
  roundTrip(value: unknown) {
    return Promise.resolve(structuredClone(value));
  }
  readonly unsent = new MemoryOutboxStore();
  outbox(hostId: string) {
    return this.unsent.outbox(hostId);
  }
  putOutbox(record: OutboxRecord) {
    return this.unsent.putOutbox(record);
  }
  deleteOutbox(id: string) {
    return this.unsent.deleteOutbox(id);
  }
}

let standIn: IdbStandIn | undefined;
afterEach(() => {
  standIn?.restore();
  standIn = undefined;
});

const random = seededRandom('app-model');

/** A fake host that knows one device, and the record the app would have after pairing with it. */
function pairedHost(name: string, pairedAt: number) {
  const identity = generateHostIdentity(random);
  const host = new FakeHost(identity.box, systemClock, random);
  const device = generateBoxKeyPair(random);
  const deviceId = toBase64Url(random(16));
  host.devices.set(deviceId, device.publicKey);
  host.handlers.set('host.info', () => ({
    result: {
      hostId: identity.hostId,
      name,
      version: '1',
      protocolVersion: 1,
      deviceId,
      scopes: ['watch'],
      features: [],
      models: ['demo'],
      defaultModel: 'demo',
      roots: ['/'],
    },
  }));
  host.handlers.set('sessions.list', () => ({ result: { sessions: [] } }));
  host.handlers.set('approvals.list', () => ({ result: { approvals: [] } }));
  host.handlers.set('devices.revoke', (params) => {
    host.devices.delete((params as { id: string }).id);
    return { result: {} };
  });
  const record: HostRecord = {
    hostId: identity.hostId,
    name: 'unnamed',
    apiBase: 'http://127.0.0.1:1',
    deviceId,
    keyStorage: 'raw',
    deviceSecretKey: toBase64Url(device.secretKey),
    hostBoxPublicKey: toBase64Url(identity.box.publicKey),
    hostSignPublicKey: toBase64Url(identity.sign.publicKey),
    scopes: ['watch', 'approve'],
    pairedAt,
    lastSeenAt: null,
    recentFolders: [],
  };
  return { host, record };
}

function model(db: AppModelDeps['db'], hosts: Map<string, FakeHost>, clock?: ManualClock) {
  return new AppModel({
    db,
    now: () => 1,
    subtle: crypto.subtle,
    ...(clock ? { clock } : {}),
    connectTo:
      (record): Connect =>
      () => {
        const [device, server] = memoryPipe();
        hosts.get(record.hostId)!.accept(server);
        return Promise.resolve(device);
      },
  });
}

describe('AppModel', () => {
  it('says the storage is held when the paired hosts are not read in time, and stops saying so once they are', async () => {
    const db = new MemoryDb();
    let answer: (hosts: HostRecord[]) => void = () => undefined;
    db.hosts = () => new Promise((resolve) => (answer = resolve));
    const clock = new ManualClock();
    const app = model(db, new Map(), clock);
    const starting = app.init();
    clock.advance(HOSTS_STALL_MS - 1);
    expect(app.storageStalled.get()).toBe(false);
    clock.advance(1);
    expect(app.storageStalled.get()).toBe(true);
    expect(app.ready.get()).toBe(false);
    answer([]);
    await starting;
    expect(app.storageStalled.get()).toBe(false);
    expect(app.ready.get()).toBe(true);
  });

  it('keeps several hosts, each with its own connection, across restarts', async () => {
    const db = new MemoryDb();
    const a = pairedHost('laptop', 1);
    const b = pairedHost('desktop', 2);
    const fakes = new Map([
      [a.record.hostId, a.host],
      [b.record.hostId, b.host],
    ]);
    const app = model(db, fakes);
    await app.init();
    await app.addHost(a.record);
    await app.addHost(b.record);
    await settle();
    expect(app.hosts.get().map((h) => h.name)).toEqual(['laptop', 'desktop']);
    expect(app.allConnections().map((c) => c.status.get().name)).toEqual(['open', 'open']);
    await app.rename(a.record.hostId, 'work laptop');
    await app.rememberFolder(a.record.hostId, '/src/x');
    await app.rememberFolder(a.record.hostId, '/src/y');
    await app.rememberFolder(a.record.hostId, '/src/x');
    for (const c of app.allConnections()) c.stop();

    const again = model(db, fakes);
    await again.init();
    expect(again.host(a.record.hostId)).toMatchObject({
      customName: 'work laptop',
      recentFolders: ['/src/x', '/src/y'],
    });
    await settle();
    expect(again.allConnections().map((c) => c.status.get().name)).toEqual(['open', 'open']);
    for (const c of again.allConnections()) c.stop();
  });

  it('connects with a non-extractable WebCrypto device key, across restarts', async () => {
    const db = new MemoryDb();
    const a = pairedHost('laptop', 1);
    const made = await makeDeviceKey(crypto.subtle, (value) => db.roundTrip(value), random);
    if (!made.ok) throw new Error(made.error.message);
    const key = made.value;
    a.host.devices.set(a.record.deviceId, key.publicKey);
    const { deviceSecretKey: _raw, ...rest } = a.record;
    const record: HostRecord = { ...rest, ...key.record };
    const fakes = new Map([[record.hostId, a.host]]);
    const app = model(db, fakes);
    await app.init();
    await app.addHost(record);
    await settle();
    expect(app.connection(record.hostId)?.status.get().name).toBe('open');
    app.connection(record.hostId)?.stop();
    // Stored by structured clone, read back as a CryptoKey that still cannot be exported.
    const again = model(db, fakes);
    await again.init();
    await settle();
    expect(again.host(record.hostId)?.deviceKey?.privateKey.extractable).toBe(false);
    expect(again.connection(record.hostId)?.status.get().name).toBe('open');
    again.connection(record.hostId)?.stop();
  });

  it('a pairing the storage does not keep is not added, and the host is told to forget the device', async () => {
    standIn = installIdbStandIn('as-is');
    const db = new AppDb({ factory: standIn.factory });
    const a = pairedHost('laptop', 1);
    const made = await makeDeviceKey(crypto.subtle, (value) => db.roundTrip(value), random);
    if (!made.ok) throw new Error(made.error.message);
    a.host.devices.set(a.record.deviceId, made.value.publicKey);
    const { deviceSecretKey: _raw, ...rest } = a.record;
    const record: HostRecord = { ...rest, ...made.value.record };
    const app = model(db, new Map([[record.hostId, a.host]]));
    await app.init();
    // The storage fills up between the key check and the save, after the computer allowed it.
    standIn.mode = 'refuse';
    const added = await app.addHost(record);
    expect(added).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'storage-failed',
        afterPairing: { deviceId: record.deviceId, revoked: true },
      }) as unknown,
    });
    expect(a.host.devices.has(record.deviceId)).toBe(false);
    expect(app.hosts.get()).toEqual([]);
    expect(app.allConnections()).toEqual([]);
    expect(app.storage.get().failed.host).toBe(1);
    expect(failedWrites(app.storage.get())).toBe(1);
  });

  it('says when the computer could not be told to forget a pairing that was not kept', async () => {
    const db = new MemoryDb();
    db.putHost = () => Promise.resolve(false);
    const a = pairedHost('laptop', 1);
    // No host answers: the connection never opens, and the wait for it runs out.
    const clock = new ManualClock();
    const app = model(db, new Map(), clock);
    const adding = app.addHost(a.record);
    await settle();
    clock.advance(10_000);
    const added = await adding;
    expect(!added.ok && added.error.afterPairing).toEqual({ deviceId: a.record.deviceId, revoked: false });
    expect(a.host.devices.has(a.record.deviceId)).toBe(true);
    expect(app.hosts.get()).toEqual([]);
  });

  it('unpairs by revoking itself on the host, then forgets the host', async () => {
    const db = new MemoryDb();
    const a = pairedHost('laptop', 1);
    const app = model(db, new Map([[a.record.hostId, a.host]]));
    await app.init();
    await app.addHost(a.record);
    await settle();
    const told = await app.unpair(a.record.hostId);
    expect(told.ok).toBe(true);
    expect(a.host.devices.size).toBe(0);
    expect(app.hosts.get()).toEqual([]);
    expect(db.rows.size).toBe(0);
  });

  it('marks a host that refuses this device, and does not dial it after a restart', async () => {
    const db = new MemoryDb();
    const a = pairedHost('laptop', 1);
    a.host.revoked.add(a.record.deviceId);
    const fakes = new Map([[a.record.hostId, a.host]]);
    const app = model(db, fakes);
    await app.init();
    await app.addHost(a.record);
    await settle();
    expect(app.host(a.record.hostId)?.refused?.code).toBe('revoked');
    const again = model(db, fakes);
    await again.init();
    await settle();
    expect(again.connection(a.record.hostId)?.status.get().name).toBe('idle');
  });
});
