import { boxKeyPairFromSecret, staticBoxKey, toBase64Url } from '@tether/shared-protocol';
import { ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { deviceKeyFor, makeDeviceKey } from '../net/device-key.js';
import { EMPTY_TRANSCRIPT } from '../transcript/transcript.js';
import type { TranscriptSize } from './app-db-stores.js';
import { AppDb, READ_TIMEOUT_MS, WRITE_TIMEOUT_MS, evictions } from './app-db.js';
import type { IdbStandIn, StandInMode } from './idb-stand-in.js';
import { holdStore, installIdbStandIn, refusingFactory } from './idb-stand-in.js';
import type { HostRecord } from './records.js';
import { failedWrites } from './storage-health.js';

const row = (key: string, bytes: number, savedAt: number): TranscriptSize => ({ key, hostId: 'h', bytes, savedAt });

describe('transcript cache eviction', () => {
  it('evicts the least recently saved until both the count and the size fit', () => {
    const rows = [row('a', 10, 3), row('b', 10, 1), row('c', 10, 2), row('d', 10, 4)];
    expect(evictions(rows, 'd', 3, 1000)).toEqual(['b']);
    expect(evictions(rows, 'd', 10, 25)).toEqual(['b', 'c']);
    expect(evictions(rows, 'd', 10, 1000)).toEqual([]);
  });

  it('never evicts the transcript just written, even when it alone is over', () => {
    const rows = [row('old', 5, 1), row('big', 100, 2)];
    expect(evictions(rows, 'big', 10, 50)).toEqual(['old']);
  });
});

const random = seededRandom('app-db');
let standIn: IdbStandIn | undefined;
afterEach(() => {
  standIn?.restore();
  standIn = undefined;
});

function db(mode: StandInMode = 'as-is') {
  standIn ??= installIdbStandIn(mode);
  standIn.mode = mode;
  return new AppDb({ factory: standIn.factory });
}

const hostKeys = boxKeyPairFromSecret(random(32));
const base = {
  hostId: 'HHHHHHHHHHHHHHHHHHHHHA',
  name: 'laptop',
  apiBase: 'https://laptop.example:7420',
  deviceId: 'DDDDDDDDDDDDDDDDDDDDDA',
  hostBoxPublicKey: toBase64Url(hostKeys.publicKey),
  hostSignPublicKey: toBase64Url(hostKeys.publicKey),
  scopes: ['watch' as const],
  pairedAt: 1,
  lastSeenAt: null,
  recentFolders: [],
};

async function webCryptoHost(): Promise<HostRecord> {
  const pair = await crypto.subtle.generateKey({ name: 'X25519' }, false, ['deriveBits']);
  const publicKey = toBase64Url(new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey)));
  return { ...base, keyStorage: 'webcrypto', deviceKey: { privateKey: pair.privateKey, publicKey } };
}

/** The static box key this device has with the host: equal keys mean the same device key. */
async function boxKey(record: HostRecord): Promise<Uint8Array> {
  return staticBoxKey(await deviceKeyFor(record, crypto.subtle), hostKeys.publicKey);
}

describe('keeping hosts', () => {
  it('keeps a WebCrypto key as it is where the browser stores one, across a restart', async () => {
    const record = await webCryptoHost();
    expect(await db().putHost(record)).toBe(true);
    const [back] = await db().hosts();
    expect(back?.keyStorage).toBe('webcrypto');
    expect(back?.deviceKey?.privateKey.extractable).toBe(false);
    expect(await boxKey(back!)).toEqual(await boxKey(record));
  });

  it.each(['webkit', 'webkit-null'] as const)(
    'says so and counts it when the browser does not keep the record (%s), instead of forgetting it at the next start',
    async (mode) => {
      const store = db(mode);
      expect(await store.putHost(await webCryptoHost())).toBe(false);
      expect(store.health.get()).toMatchObject({ failed: { host: 1, 'session-list': 0, transcript: 0 }, last: 'host' });
      expect(await db(mode).hosts()).toEqual([]);
    },
  );

  it('keeps a wrapped key where the browser cannot store X25519 keys, and it unwraps after a restart', async () => {
    const store = db('webkit');
    const key = await makeDeviceKey(crypto.subtle, (value) => store.roundTrip(value), random);
    if (!key.ok) throw new Error(key.error.message);
    expect(key.value.record.keyStorage).toBe('wrapped');
    const record: HostRecord = { ...base, ...key.value.record };
    expect(await store.putHost(record)).toBe(true);
    expect(failedWrites(store.health.get())).toBe(0);
    const [back] = await db('webkit').hosts();
    expect(back?.keyStorage).toBe('wrapped');
    expect(await boxKey(back!)).toEqual(await boxKey(record));
  });

  it('reads a pairing made before the update (no keyStorage, the database at version 2) and still connects with it', async () => {
    standIn = installIdbStandIn('as-is');
    const record = await webCryptoHost();
    const { keyStorage: _none, ...old } = record;
    const request = standIn.factory.open('tether', 2);
    request.onupgradeneeded = () => {
      const old2 = request.result;
      old2.createObjectStore('hosts', { keyPath: 'hostId' });
      old2.createObjectStore('sessionLists', { keyPath: 'hostId' });
      const transcripts = old2.createObjectStore('transcripts', { keyPath: 'key' });
      transcripts.createIndex('byHost', 'hostId');
      transcripts.createIndex('bySaved', 'savedAt');
      old2.createObjectStore('transcriptSizes', { keyPath: 'key' }).createIndex('byHost', 'hostId');
      request.transaction!.objectStore('hosts').put(old);
    };
    const opened = await new Promise<IDBDatabase>((resolve, reject) => {
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(new Error('could not open the old database'));
    });
    opened.close();

    const store = db();
    const [back] = await store.hosts();
    expect(back?.keyStorage).toBe('webcrypto');
    expect(await boxKey(back!)).toEqual(await boxKey(record));
    // The upgrade added the scratch store the key check uses.
    expect(await store.roundTrip('still here')).toBe('still here');
  });

  it('counts failed cache writes by what they held', async () => {
    const store = db();
    expect(await store.available()).toBe(true);
    standIn!.mode = 'refuse';
    expect(await store.putSessionList({ hostId: base.hostId, sessions: [], savedAt: 1 })).toBe(false);
    expect(await store.putTranscript(base.hostId, 's1', EMPTY_TRANSCRIPT, 1)).toBe(false);
    expect(await store.putTranscript(base.hostId, 's2', EMPTY_TRANSCRIPT, 1)).toBe(false);
    expect(store.health.get()).toMatchObject({
      failed: { host: 0, 'session-list': 1, transcript: 2 },
      last: 'transcript',
    });
    expect(failedWrites(store.health.get())).toBe(3);
    standIn!.mode = 'as-is';
    expect(await store.putSessionList({ hostId: base.hostId, sessions: [], savedAt: 2 })).toBe(true);
    expect(failedWrites(store.health.get())).toBe(3);
  });

  it('gives up on a cache read and counts a write as failed while another page holds the store, and works once it lets go', async () => {
    standIn = installIdbStandIn('as-is');
    const clock = new ManualClock();
    const store = new AppDb({ factory: standIn.factory, clock });
    const list = { hostId: base.hostId, sessions: [], savedAt: 1 };
    expect(await store.putSessionList(list)).toBe(true);
    const release = await holdStore(standIn.factory, 'tether', 'sessionLists');
    const reading = store.sessionList(base.hostId);
    const writing = store.putSessionList({ ...list, savedAt: 2 });
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(READ_TIMEOUT_MS);
    expect(await reading).toBeUndefined();
    expect(store.health.get().stalledReads).toBe(1);
    clock.advance(WRITE_TIMEOUT_MS - READ_TIMEOUT_MS);
    expect(await writing).toBe(false);
    expect(store.health.get()).toMatchObject({ failed: { 'session-list': 1 }, last: 'session-list' });
    // Other stores are not held up meanwhile.
    expect(await store.putHost(await webCryptoHost())).toBe(true);
    await release();
    expect(await store.putSessionList({ ...list, savedAt: 3 })).toBe(true);
    expect((await store.sessionList(base.hostId))?.savedAt).toBe(3);
  });

  it('lets a newer version of the app upgrade the database: this page closes, and its writes fail, counted', async () => {
    const store = db();
    expect(await store.putSessionList({ hostId: base.hostId, sessions: [], savedAt: 1 })).toBe(true);
    const newer = standIn!.factory.open('tether', 99);
    await new Promise<void>((resolve, reject) => {
      newer.onsuccess = () => {
        newer.result.close();
        resolve();
      };
      newer.onerror = () => reject(new Error('the newer app was kept waiting'));
    });
    expect(await store.putSessionList({ hostId: base.hostId, sessions: [], savedAt: 2 })).toBe(false);
    expect(store.health.get().failed['session-list']).toBe(1);
  });

  it('where IndexedDB is refused outright: every write fails and is counted, and the key check finds nothing kept', async () => {
    const store = new AppDb({ factory: refusingFactory() });
    expect(await store.available()).toBe(false);
    expect(await store.roundTrip('x')).toBeUndefined();
    expect(await store.putHost(await webCryptoHost())).toBe(false);
    expect(await store.deleteHost(base.hostId)).toBe(false);
    expect(store.health.get().failed.host).toBe(2);
    expect(await store.hosts()).toEqual([]);
  });
});

describe('the outbox in IndexedDB', () => {
  const message = (id: string, createdAt: number, hostId = base.hostId) => ({
    id,
    hostId,
    sessionId: 's1',
    text: `text of ${id}`,
    createdAt,
  });

  it('keeps unsent messages across a restart, per host and oldest first, and skips a damaged row', async () => {
    const first = db();
    expect(await first.putOutbox(message('msg-bbbbbbbb', 2))).toBe(true);
    expect(await first.putOutbox(message('msg-aaaaaaaa', 1))).toBe(true);
    expect(await first.putOutbox(message('msg-cccccccc', 3, 'HHHHHHHHHHHHHHHHHHHHHB'))).toBe(true);
    // A row from elsewhere that is not a message (no text) is skipped and counted, not sent.
    expect(await first.putOutbox({ ...message('msg-dddddddd', 4), text: '' })).toBe(true);

    const second = db();
    expect((await second.outbox(base.hostId)).map((r) => r.id)).toEqual(['msg-aaaaaaaa', 'msg-bbbbbbbb']);
    expect(second.health.get().undecodable).toBe(1);
    expect(await second.deleteOutbox('msg-aaaaaaaa')).toBe(true);
    expect((await second.outbox(base.hostId)).map((r) => r.id)).toEqual(['msg-bbbbbbbb']);
  });

  it("forgets a host's unsent messages with the host", async () => {
    const store = db();
    await store.putHost({ ...base, keyStorage: 'raw', deviceSecretKey: toBase64Url(random(32)) });
    await store.putOutbox(message('msg-eeeeeeee', 1));
    await store.putOutbox(message('msg-ffffffff', 1, 'HHHHHHHHHHHHHHHHHHHHHB'));
    expect(await store.deleteHost(base.hostId)).toBe(true);
    expect(await store.outbox(base.hostId)).toEqual([]);
    expect(await store.outbox('HHHHHHHHHHHHHHHHHHHHHB')).toHaveLength(1);
  });

  it('counts a failed outbox write, so the banner says the message may be lost', async () => {
    const store = db();
    expect(await store.available()).toBe(true);
    standIn!.mode = 'refuse';
    expect(await store.putOutbox(message('msg-gggggggg', 1))).toBe(false);
    expect(store.health.get()).toMatchObject({ failed: { outbox: 1 }, last: 'outbox' });
  });
});

describe('no transaction waits on the page', () => {
  it('commits every transaction in the task that makes its requests, so a page frozen after it holds nothing', async () => {
    const store = db();
    const { IDBDatabase: FakeDatabase } = await import('fake-indexeddb');
    const made = FakeDatabase.prototype.transaction;
    const left: string[] = [];
    let count = 0;
    FakeDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<typeof made>) {
      const tx = made.apply(this, args);
      // The database's own upgrade transaction (no stores named) is not the page's.
      const names = typeof args[0] === 'string' ? [args[0]] : [...args[0]];
      if (names.length === 0) return tx;
      const commit = tx.commit.bind(tx);
      let committed = false;
      tx.commit = () => {
        committed = true;
        commit();
      };
      count++;
      // The next task: a page frozen there never commits a transaction left to commit itself.
      setImmediate(() => committed || left.push(names.join()));
      return tx;
    } as typeof made;
    try {
      const other = 'HHHHHHHHHHHHHHHHHHHHHB';
      expect(await store.roundTrip({ probe: 1 })).toEqual({ probe: 1 });
      expect(await store.putHost(await webCryptoHost())).toBe(true);
      expect(await store.hosts()).toHaveLength(1);
      expect(await store.putSessionList({ hostId: base.hostId, sessions: [], savedAt: 1 })).toBe(true);
      expect(await store.sessionList(base.hostId)).toBeDefined();
      for (const [hostId, sessionId] of [
        [base.hostId, 's1'],
        [base.hostId, 's2'],
        [other, 's1'],
      ] as const)
        expect(await store.putTranscript(hostId, sessionId, EMPTY_TRANSCRIPT, 1)).toBe(true);
      expect(await store.transcript(base.hostId, 's1')).toBeDefined();
      const message = { id: 'msg-hhhhhhhh', hostId: base.hostId, sessionId: 's1', text: 'hi', createdAt: 1 };
      expect(await store.putOutbox(message)).toBe(true);
      expect(await store.outbox(base.hostId)).toHaveLength(1);
      expect(await store.deleteHost(base.hostId)).toBe(true);
      // Forgotten with everything cached for it; another host's transcript stays.
      expect(await store.hosts()).toEqual([]);
      expect(await store.sessionList(base.hostId)).toBeUndefined();
      expect(await store.transcript(base.hostId, 's2')).toBeUndefined();
      expect(await store.transcript(other, 's1')).toBeDefined();
      expect(await store.outbox(base.hostId)).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      FakeDatabase.prototype.transaction = made;
    }
    expect(count).toBeGreaterThan(10);
    expect(left).toEqual([]);
  });
});
