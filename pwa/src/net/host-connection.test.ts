import type { HostInfo, SessionSummary } from '@tether/shared-protocol';
import { generateBoxKeyPair, generateDeviceId, memoryPipe, toBase64Url } from '@tether/shared-protocol';
import { FakeHost, ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { HostRecord } from '../data/records.js';
import type { FrameScheduler } from '../lib/next-frame.js';
import { MemoryCache } from './cache-port.js';
import { HostConnection } from './host-connection.js';
import { EMPTY_TRANSCRIPT, foldEvents } from '../transcript/transcript.js';
import { gaps, skipTo } from '../transcript/transcript-gaps.js';
import { SAVE_DELAY_MS, WATCH_TAIL } from './session-feed.js';

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setTimeout(resolve, 0));
};

const summary = (id: string, lastSeq: number): SessionSummary => ({
  id,
  title: `title ${id}`,
  kind: 'agent',
  place: 'local',
  cwd: '/w',
  model: 'demo',
  status: 'idle',
  archived: false,
  autoApprove: false,
  createdAt: 1,
  updatedAt: 1,
  lastSeq,
  pendingApprovals: 0,
  queued: 0,
  lastLine: '',
});

function setup(options: { frame?: FrameScheduler } = {}) {
  const random = seededRandom('host-connection');
  const clock = new ManualClock();
  const host = new FakeHost(generateBoxKeyPair(random), clock, random);
  const deviceKeys = generateBoxKeyPair(random);
  const deviceId = generateDeviceId(random);
  host.devices.set(deviceId, deviceKeys.publicKey);
  const info: HostInfo = {
    hostId: 'h'.repeat(22),
    name: 'laptop',
    version: '0.1.0',
    protocolVersion: 1,
    deviceId,
    scopes: ['watch', 'chat', 'approve'],
    features: [],
    models: ['demo'],
    defaultModel: 'demo',
    roots: ['/w'],
  };
  host.handlers.set('host.info', () => ({ result: info }));
  host.handlers.set('sessions.list', () => ({
    result: { sessions: [summary('s1', host.logs.get('s1')?.length ?? 0)] },
  }));
  host.handlers.set('approvals.list', () => ({ result: { approvals: [] } }));
  const network = { up: true };
  const record: HostRecord = {
    hostId: 'h'.repeat(22),
    name: 'old name',
    apiBase: 'http://127.0.0.1:1',
    deviceId,
    keyStorage: 'raw',
    deviceSecretKey: toBase64Url(deviceKeys.secretKey),
    hostBoxPublicKey: toBase64Url(host.keys.publicKey),
    hostSignPublicKey: toBase64Url(random(32)),
    scopes: ['watch'],
    pairedAt: 0,
    lastSeenAt: null,
    recentFolders: [],
  };
  const cache = new MemoryCache();
  const changes: Partial<HostRecord>[] = [];
  const connection = new HostConnection(record, {
    deviceKey: deviceKeys,
    cache,
    clock,
    random,
    jitter: () => 0.5,
    ...(options.frame ? { frame: options.frame } : {}),
    saveRecord: (change) => changes.push(change),
    connect: () => {
      if (!network.up) return Promise.reject(new Error('offline'));
      const [device, server] = memoryPipe();
      host.accept(server);
      return Promise.resolve(device);
    },
  });
  return { clock, host, cache, connection, changes, network, record, info, deviceKeys };
}

describe('HostConnection', () => {
  it('shows the cached list at once, then the host list once connected', async () => {
    const s = setup();
    await s.cache.putSessionList({ hostId: s.record.hostId, sessions: [summary('old', 3)], savedAt: 0 });
    const started = s.connection.start();
    await started;
    expect(s.connection.sessions.get()).toMatchObject({ fresh: false, loaded: true, list: [{ id: 'old' }] });
    await settle();
    expect(s.connection.status.get().name).toBe('open');
    expect(s.connection.sessions.get()).toMatchObject({ fresh: true, list: [{ id: 's1' }] });
    expect(s.changes).toContainEqual(expect.objectContaining({ name: 'laptop' }));
    s.connection.stop();
  });

  it('puts the summaries a run sends between two frames into the list as one change, the newest of each', async () => {
    const frames: (() => void)[] = [];
    const s = setup({ frame: (run) => frames.push(run) });
    await s.connection.start();
    await settle();
    s.connection.feed('s1');
    await settle();
    for (const run of frames.splice(0)) run();
    const changes: SessionSummary[][] = [];
    s.connection.sessions.subscribe((view) => changes.push(view.list));
    for (let seq = 1; seq <= 50; seq++) {
      s.host.appendEvent('s1', {
        type: 'session.updated',
        session: { ...summary('s1', seq), lastLine: `step ${seq}` },
      });
    }
    await settle();
    expect(changes).toEqual([]);
    for (const run of frames.splice(0)) run();
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject([{ id: 's1', lastSeq: 50, lastLine: 'step 50' }]);
    s.connection.stop();
  });

  it('follows a session from its cache and resumes after a redial with nothing doubled', async () => {
    const s = setup();
    for (let i = 1; i <= 3; i++) s.host.append('s1', `m${i}`);
    await s.connection.start();
    await settle();
    const feed = s.connection.feed('s1');
    await settle();
    expect(feed.view.get().transcript.lastSeq).toBe(3);
    s.clock.advance(SAVE_DELAY_MS);
    await settle();
    expect(feed.view.get().savedSeq).toBe(3);

    // Offline: the connection is dropped while the host goes on.
    s.network.up = false;
    s.connection.redial();
    await settle();
    expect(s.connection.status.get().name).toBe('waiting');
    expect(s.connection.sessions.get().fresh).toBe(false);
    for (let i = 4; i <= 6; i++) s.host.append('s1', `m${i}`);
    s.network.up = true;
    s.connection.reconnectNow();
    await settle();
    const transcript = feed.view.get().transcript;
    expect(transcript.lastSeq).toBe(6);
    expect(transcript.applied).toBe(6);
    expect(transcript.items.map((i) => (i.kind === 'message' ? i.text : i.kind))).toEqual([
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
      'm6',
    ]);
    s.connection.stop();
  });

  it('opens a new feed from the cache and asks the host only for what it lacks', async () => {
    const s = setup();
    for (let i = 1; i <= 4; i++) s.host.append('s1', `m${i}`);
    await s.connection.start();
    await settle();
    const first = s.connection.feed('s1');
    await settle();
    await first.flush();
    s.connection.stop();

    const again = new HostConnection(s.record, {
      deviceKey: s.deviceKeys,
      cache: s.cache,
      clock: s.clock,
      saveRecord: () => {},
      connect: () => {
        const [device, server] = memoryPipe();
        s.host.accept(server);
        return Promise.resolve(device);
      },
    });
    await again.start();
    const feed = again.feed('s1');
    await settle();
    expect(s.host.calls.filter((c) => c.method === 'sessions.watch').at(-1)?.params).toEqual({
      id: 's1',
      after: 4,
      tail: WATCH_TAIL,
    });
    expect(feed.view.get().transcript.applied).toBe(4);
    again.stop();
  });

  it('comes back after a long sleep with the newest events, then pages the rest in: nothing lost or doubled', async () => {
    const s = setup();
    for (let i = 1; i <= 5; i++) s.host.append('s1', `m${i}`);
    await s.connection.start();
    await settle();
    const feed = s.connection.feed('s1');
    await settle();
    expect(feed.view.get().transcript.lastSeq).toBe(5);

    // Offline for the whole of a long run.
    s.network.up = false;
    s.connection.redial();
    await settle();
    const total = 5 + WATCH_TAIL * 3 + 17;
    for (let i = 6; i <= total; i++) s.host.append('s1', `m${i}`);
    s.network.up = true;
    s.connection.reconnectNow();
    await settle();
    let transcript = feed.view.get().transcript;
    // Only the newest events were replayed, behind one gap.
    expect(transcript.lastSeq).toBe(total);
    expect(transcript.applied).toBe(5 + WATCH_TAIL);
    expect(gaps(transcript)).toEqual([expect.objectContaining({ after: 5, to: total - WATCH_TAIL })]);
    const texts = (t: typeof transcript) => t.items.flatMap((i) => (i.kind === 'message' ? [i.text] : []));
    expect(texts(transcript).at(-1)).toBe(`m${total}`);

    // Scrolling up reads the gap back, a page at a time, newest first.
    for (let pages = 0; pages < 10 && gaps(feed.view.get().transcript).length > 0; pages++) await feed.loadOlder();
    transcript = feed.view.get().transcript;
    expect(gaps(transcript)).toEqual([]);
    expect(transcript.applied).toBe(total);
    expect(texts(transcript)).toEqual(Array.from({ length: total }, (_, i) => `m${i + 1}`));
    s.connection.stop();
  });

  it('reads the page of the gap the reader nears, not always the newest gap', async () => {
    const s = setup();
    const events = Array.from({ length: 100 }, (_, i) => s.host.append('s1', `m${i + 1}`));
    // Cached: events 21–40 and 81–100, behind two gaps.
    let cached = foldEvents(skipTo(EMPTY_TRANSCRIPT, 0, 20), events.slice(20, 40));
    cached = foldEvents(skipTo(cached, 40, 80), events.slice(80));
    await s.cache.putTranscript(s.record.hostId, 's1', cached, 0);
    await s.connection.start();
    await settle();
    const feed = s.connection.feed('s1');
    await settle();
    const [newest, oldest] = gaps(feed.view.get().transcript);
    expect([newest, oldest]).toMatchObject([
      { after: 40, to: 80 },
      { after: 0, to: 20 },
    ]);
    await feed.loadOlder(oldest!.id);
    expect(s.host.calls.filter((c) => c.method === 'sessions.history').at(-1)?.params).toMatchObject({
      id: 's1',
      before: 21,
    });
    expect(gaps(feed.view.get().transcript)).toEqual([newest]);
    // Without a gap named, the newest.
    await feed.loadOlder();
    expect(gaps(feed.view.get().transcript)).toEqual([]);
    const texts = feed.view.get().transcript.items.flatMap((i) => (i.kind === 'message' ? [i.text] : []));
    expect(texts).toEqual(events.map((e) => (e.type === 'message' ? e.text : '')));
    s.connection.stop();
  });

  it('applies a burst of events as one batch: one new state, not one per event', async () => {
    const s = setup();
    await s.connection.start();
    await settle();
    const feed = s.connection.feed('s1');
    await settle();
    let states = 0;
    feed.view.subscribe(() => states++);
    for (let i = 1; i <= 200; i++) s.host.append('s1', `m${i}`);
    await settle();
    expect(feed.view.get().transcript.lastSeq).toBe(200);
    expect(states).toBeLessThanOrEqual(2);
    s.connection.stop();
  });

  it('caches only the newest items of a long transcript, the rest read again when scrolled to', async () => {
    const s = setup();
    for (let i = 1; i <= 1000; i++) s.host.append('s1', `m${i}`);
    await s.connection.start();
    await settle();
    const feed = s.connection.feed('s1');
    await settle();
    await feed.flush();
    const cached = await s.cache.transcript(s.record.hostId, 's1');
    expect(cached?.state.lastSeq).toBe(1000);
    expect(cached?.state.items.length).toBeLessThanOrEqual(401);
    expect(cached?.state.items[0]).toMatchObject({ kind: 'gap', after: 0 });
    s.connection.stop();
  });

  it('lists the machines when it connects to a host that has them, and not otherwise', async () => {
    const machine = { id: 'm1', name: 'laptop', status: 'online' as const, roots: ['/w'], lastSeenAt: 5 };
    const plain = setup();
    plain.host.handlers.set('machines.list', () => ({ result: { machines: [machine] } }));
    await plain.connection.start();
    await settle();
    expect(plain.host.calls.some((c) => c.method === 'machines.list')).toBe(false);
    expect(plain.connection.machines.get()).toEqual([]);
    plain.connection.stop();

    const s = setup();
    s.info.features = ['machines'];
    s.host.handlers.set('machines.list', () => ({ result: { machines: [machine] } }));
    await s.connection.start();
    await settle();
    expect(s.connection.machines.get()).toEqual([machine]);
    s.connection.stop();
  });

  it('routes host events: machine status to its store, every host event to listeners', async () => {
    const s = setup();
    await s.connection.start();
    await settle();
    const heard: string[] = [];
    const off = s.connection.onHostEvent((event) => heard.push(event.type));
    const machine = { id: 'm1', name: 'laptop', status: 'online' as const, roots: ['/w'], lastSeenAt: 5 };
    s.host.publish({ type: 'machine.status', machine });
    s.host.publish({ type: 'machine.status', machine: { ...machine, status: 'offline' } });
    s.host.publish({ type: 'terminal.exit', terminalId: 't1', code: 0 });
    await settle();
    expect(s.connection.machines.get()).toEqual([{ ...machine, status: 'offline' }]);
    expect(heard).toEqual(['machine.status', 'machine.status', 'terminal.exit']);
    off();
    s.connection.stop();
  });

  it('asks first, once connected, for the approval a notification opened the app on', async () => {
    const s = setup();
    s.host.handlers.set('approvals.get', () => ({ error: { code: 'not-found' as const, message: 'gone' } }));
    const lookup = s.connection.approvalState.lookup('a_1');
    await s.connection.start();
    await settle();
    expect(s.host.calls.map((c) => c.method).slice(0, 2)).toEqual(['approvals.get', 'host.info']);
    expect(lookup.get()).toEqual({ state: 'missing' });
    s.connection.stop();
  });

  it('records a refusal for good and stops dialling', async () => {
    const s = setup();
    s.host.revoked.add(s.record.deviceId);
    await s.connection.start();
    await settle();
    expect(s.connection.status.get()).toMatchObject({ name: 'refused', error: { code: 'revoked' } });
    expect(s.changes).toContainEqual({ refused: expect.objectContaining({ code: 'revoked' }) as unknown });
  });
});
