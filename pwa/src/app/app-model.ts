import type { Clock, Connect, PairingLink, Result } from '@tether/shared-protocol';
import { fail, ok, systemClock } from '@tether/shared-protocol';
import type { AppDb } from '../data/app-db.js';
import type { HostRecord } from '../data/records.js';
import { MAX_RECENT_FOLDERS } from '../data/records.js';
import type { NotKept, StorageHealth } from '../data/storage-health.js';
import { Store } from '../lib/store.js';
import type { CachePort } from '../net/cache-port.js';
import type { OutboxStore } from '../net/outbox.js';
import type * as ConnectionKitModule from '../net/connection-kit.js';
import type { HostConnection } from '../net/host-connection.js';

type ConnectionKit = typeof ConnectionKitModule;
import type { Route } from '../lib/route.js';
import { relaysFromInfo, renewRelayTicket } from '../net/relay-ticket-renewal.js';

export interface AppModelDeps {
  db: Pick<AppDb, 'hosts' | 'putHost' | 'deleteHost' | 'roundTrip' | 'health'> & CachePort & OutboxStore;
  /**
   * Opens the sealed channel's transport to a host (a WebSocket to `<apiBase>/rc/ws`); `current`
   * gives the host's record as it is at each dial (a renewed ticket), undefined once forgotten.
   */
  connectTo: (host: HostRecord, current: () => HostRecord | undefined) => Connect;
  now: () => number;
  /** WebCrypto, for device keys kept as non-extractable CryptoKeys; undefined on plain HTTP. */
  subtle: SubtleCrypto | undefined;
  /** For the wait on a host told to forget this device (the system clock by default). */
  clock?: Clock;
}

/** How long (ms) unpairing waits for the host to confirm before forgetting the host anyway. */
const UNPAIR_TIMEOUT_MS = 5000;
/** How long (ms) reading the paired hosts may take before the screen says the storage is held. */
export const HOSTS_STALL_MS = 5000;

/**
 * The connection code and its crypto, loaded after the first screen (connection-kit.ts): asked for
 * once, when the model starts, alongside the read of the hosts from IndexedDB.
 */
let kit: Promise<ConnectionKit> | undefined;
const connectionKit = () => (kit ??= import('../net/connection-kit.js'));

/**
 * The app's state outside any screen: the paired hosts (records in IndexedDB), one connection to
 * each, and the pairing link being worked on. Screens read its stores and call its methods.
 */
export class AppModel {
  readonly hosts = new Store<HostRecord[]>([]);
  /** False until the hosts have been read from IndexedDB. */
  readonly ready = new Store(false);
  /** True while the paired hosts have not been read after HOSTS_STALL_MS: the storage is held. */
  readonly storageStalled = new Store(false);
  /** Bumped whenever a connection is made or dropped, for screens that list them. */
  readonly connectionsVersion = new Store(0);
  /** The pairing link taken from the address, a scan or a paste (or why it did not parse). */
  readonly pairingLink = new Store<Result<PairingLink> | null>(null);
  /** The screen shown (set by the app's router), for the hosts' "what is in front" reports. */
  readonly screen = new Store<Route>({ name: 'home' });
  /** Failed writes to the device's storage, counted: the banner that says so reads it. */
  readonly storage: Store<StorageHealth>;
  private readonly connections = new Map<string, HostConnection>();

  constructor(private readonly deps: AppModelDeps) {
    this.storage = deps.db.health;
  }

  /** Writes a value to the device's storage and reads it back (pairing asks, to choose a key). */
  roundTrip(value: unknown): Promise<unknown> {
    return this.deps.db.roundTrip(value);
  }

  async init(): Promise<void> {
    void connectionKit();
    const clock = this.deps.clock ?? systemClock;
    const stall = clock.setTimeout(() => this.storageStalled.set(true), HOSTS_STALL_MS);
    const hosts = await this.deps.db.hosts();
    clock.clearTimeout(stall);
    this.storageStalled.set(false);
    this.hosts.set(sortHosts(hosts));
    await Promise.all(hosts.map((host) => this.connect(host)));
    this.ready.set(true);
  }

  host(hostId: string): HostRecord | undefined {
    return this.hosts.get().find((h) => h.hostId === hostId);
  }

  connection(hostId: string): HostConnection | undefined {
    return this.connections.get(hostId);
  }

  allConnections(): HostConnection[] {
    return [...this.connections.values()];
  }

  /**
   * A freshly paired host (or one paired again): replaces any earlier record and connection, once
   * the record is kept. When the storage does not keep it, the pairing would be gone at the next
   * reload while the computer still listed this device: the computer is told to forget the device
   * (a device may always revoke itself), and nothing changes here.
   */
  async addHost(record: HostRecord): Promise<Result<void, NotKept>> {
    const previous = this.host(record.hostId);
    const merged: HostRecord = previous
      ? { ...record, customName: previous.customName, recentFolders: previous.recentFolders }
      : record;
    if (!merged.customName) delete merged.customName;
    if (!(await this.deps.db.putHost(merged))) {
      const revoked = await this.revokeUnkept(merged);
      return {
        ok: false,
        error: {
          code: 'storage-failed',
          message: 'the pairing could not be saved on this device',
          afterPairing: { deviceId: merged.deviceId, revoked },
        },
      };
    }
    this.connections.get(record.hostId)?.stop();
    this.connections.delete(record.hostId);
    this.hosts.update((list) => sortHosts([...list.filter((h) => h.hostId !== record.hostId), merged]));
    await this.connect(merged);
    return ok(undefined);
  }

  /** Revokes this device at the host of a record that was never kept: true once the host confirmed. */
  private async revokeUnkept(host: HostRecord): Promise<boolean> {
    const { deviceKeyFor, revokeOnce } = await connectionKit();
    let deviceKeys;
    try {
      deviceKeys = await deviceKeyFor(host, this.deps.subtle);
    } catch {
      return false;
    }
    const connect = this.deps.connectTo(host, () => host);
    return revokeOnce(host, deviceKeys, connect, UNPAIR_TIMEOUT_MS, this.deps.clock);
  }

  async rename(hostId: string, name: string): Promise<void> {
    const trimmed = name.trim().slice(0, 256);
    await this.change(hostId, (host) => {
      const next = { ...host };
      if (trimmed === '' || trimmed === host.name) delete next.customName;
      else next.customName = trimmed;
      return next;
    });
  }

  async rememberFolder(hostId: string, path: string): Promise<void> {
    await this.change(hostId, (host) => ({
      ...host,
      recentFolders: [path, ...host.recentFolders.filter((p) => p !== path)].slice(0, MAX_RECENT_FOLDERS),
    }));
  }

  /**
   * Tells the host to forget this device (a device may always revoke itself), then forgets the
   * host here, with its keys and caches. Returns an error when the host could not be told: it is
   * forgotten here all the same, and still lists the device until revoked at the computer.
   */
  async unpair(hostId: string): Promise<Result<void>> {
    const connection = this.connections.get(hostId);
    const host = this.host(hostId);
    let told: Result<void> = fail('unavailable', 'not connected');
    if (connection && host && connection.status.get().name === 'open') {
      const result = await connection.client.call(
        'devices.revoke',
        { id: host.deviceId },
        { timeoutMs: UNPAIR_TIMEOUT_MS },
      );
      told = result.ok ? ok(undefined) : result;
    }
    connection?.stop();
    this.connections.delete(hostId);
    this.connectionsVersion.update((n) => n + 1);
    await this.deps.db.deleteHost(hostId);
    this.hosts.update((list) => list.filter((h) => h.hostId !== hostId));
    return told;
  }

  /** Back online or back in front: dial every host now rather than after its backoff. */
  reconnectAll(): void {
    for (const connection of this.connections.values()) connection.reconnectNow();
  }

  /** The device went offline: drop sockets that are surely dead, so the reconnect starts clean. */
  redialAll(): void {
    for (const connection of this.connections.values()) connection.redial();
  }

  async flushAll(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.flush()));
  }

  /**
   * Makes the host's connection. The device key is turned into the static box key with this host
   * first (for a WebCrypto key, one deriveBits), kept only in memory by the connection.
   */
  private async connect(host: HostRecord): Promise<void> {
    const { HostConnection, deviceKeyFor } = await connectionKit();
    let deviceKey;
    try {
      deviceKey = await deviceKeyFor(host, this.deps.subtle);
    } catch {
      return; // a key this page cannot use (no WebCrypto here): the host stays unconnected
    }
    // Paired again or forgotten while the key was being derived: that newer call connects.
    if (this.host(host.hostId)?.deviceId !== host.deviceId || this.connections.has(host.hostId)) return;
    const connection = new HostConnection(host, {
      deviceKey,
      cache: this.deps.db,
      outbox: this.deps.db,
      connect: this.deps.connectTo(host, () => this.host(host.hostId)),
      saveRecord: (change) => void this.change(host.hostId, (current) => ({ ...current, ...change })),
    });
    this.connections.set(host.hostId, connection);
    this.connectionsVersion.update((n) => n + 1);
    // Each time the host answers host.info (every connection), the phone keeps the host's list of
    // relays, and renews the relay ticket if due.
    connection.info.subscribe((info) => {
      const current = this.host(host.hostId);
      if (!info || !current) return;
      const relays = relaysFromInfo(current, info);
      if (relays) {
        void this.change(host.hostId, (record) => ({
          ...record,
          relay: record.relay ? { ...record.relay, urls: relays.urls } : relays,
        }));
      }
      void renewRelayTicket(connection.client, current, info, this.deps.now()).then((relay) => {
        if (relay) void this.change(host.hostId, (record) => ({ ...record, relay }));
      });
    });
    void connection.start();
  }

  private async change(hostId: string, edit: (host: HostRecord) => HostRecord): Promise<void> {
    const current = this.host(hostId);
    if (!current) return;
    const next = edit(current);
    this.hosts.update((list) => sortHosts(list.map((h) => (h.hostId === hostId ? next : h))));
    await this.deps.db.putHost(next);
  }
}

function sortHosts(hosts: HostRecord[]): HostRecord[] {
  return [...hosts].sort((a, b) => a.pairedAt - b.pairedAt);
}
