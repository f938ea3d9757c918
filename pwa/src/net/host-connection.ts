import type {
  Approval,
  ClientState,
  Clock,
  Connect,
  Decision,
  DeviceKey,
  HostEvent,
  HostInfo,
  MachineInfo,
  ProtocolError,
  RandomBytes,
  Result,
  SessionSummary,
  TetherEvent,
  TimerHandle,
} from '@tether/shared-protocol';
import {
  DeviceClient,
  fromBase64UrlExact,
  isSessionEvent,
  secureRandom,
  systemClock,
  toBase64Url,
} from '@tether/shared-protocol';
import type { HostRecord } from '../data/records.js';
import type { FrameScheduler } from '../lib/next-frame.js';
import { nextFrame } from '../lib/next-frame.js';
import { Store } from '../lib/store.js';
import { mergeSummary, replaceList } from '../lib/session-list.js';
import type { CachePort } from './cache-port.js';
import { BlobReader } from '../attach/blob-reader.js';
import type { OutboxStore } from './outbox.js';
import { MemoryOutboxStore, Outbox } from './outbox.js';
import type { PathConnect, PathState } from './relay-path-connect.js';
import { SessionFeed } from './session-feed.js';
import { HostApprovals } from './host-approvals.js';

export interface SessionsView {
  list: SessionSummary[];
  /** True once the host's own list arrived on the current connection; false means cached. */
  fresh: boolean;
  /** False until the cached list has been read. */
  loaded: boolean;
}

export interface HostConnectionDeps {
  /** This device's key for the host (net/device-key.ts): for a WebCrypto key, only the static
   * box key, computed at start and kept in memory. */
  deviceKey: DeviceKey;
  cache: CachePort;
  /** Where messages not yet taken by the host are kept (in memory when absent). */
  outbox?: OutboxStore;
  connect: Connect;
  /** Persists a change to the host's record (name, info, last seen, refusal). */
  saveRecord: (change: Partial<HostRecord>) => void;
  clock?: Clock;
  random?: RandomBytes;
  jitter?: () => number;
  /** Where summaries and events are folded in: the next animation frame (all at once). */
  frame?: FrameScheduler;
}

/** Sessions followed at once per host; past it the one viewed longest ago stops being watched. */
export const MAX_FEEDS = 8;
/** Session lists are written at most this often (ms) while summaries stream in. */
const LIST_SAVE_DELAY_MS = 1000;
/** "Last seen" is written at most this often (ms): it is shown in minutes. */
const LAST_SEEN_EVERY_MS = 30_000;

/**
 * Everything the app does with one paired host: the DeviceClient (handshake, sealed RPC,
 * reconnects with jittered backoff, resumable watches), the host's session list, its waiting
 * approvals and the sessions being followed. Screens read its stores.
 */
export class HostConnection {
  readonly client: DeviceClient;
  readonly status: Store<ClientState>;
  readonly sessions = new Store<SessionsView>({ list: [], fresh: false, loaded: false });
  readonly info = new Store<HostInfo | null>(null);
  /** Approvals waiting for an answer, in every session of this host. */
  readonly approvals: Store<Approval[]>;
  /** Those, and single approvals by id (the card a notification opens), and answering them. */
  readonly approvalState: HostApprovals;
  /** The host's machines as their status events last said. */
  readonly machines = new Store<MachineInfo[]>([]);
  /** Which way the connection goes (direct or through a relay), when the Connect can say. */
  readonly path: Store<PathState> | undefined;
  /** Messages typed for this host, kept until it has taken them. */
  readonly outbox: Outbox;
  /** Attachments' bytes, read over this connection for thumbnails. */
  readonly blobs: BlobReader;
  private readonly hostEventListeners = new Set<(event: HostEvent) => void>();
  private readonly feeds = new Map<string, SessionFeed>();
  private readonly clock: Clock;
  private readonly frame: FrameScheduler;
  private listTimer: TimerHandle | undefined;
  private lastSeenSaved = 0;
  private readonly unsubscribe: (() => void)[] = [];
  /**
   * Summaries from `session.updated` not yet in the list, the newest per session (so bounded by
   * the number of sessions): a run updates its summary with every step, and the list, the session
   * screen and its transcript are rendered once per frame rather than once per step.
   */
  private readonly pendingSummaries = new Map<string, SessionSummary>();
  private summariesAsked = false;

  constructor(
    readonly record: HostRecord,
    private readonly deps: HostConnectionDeps,
  ) {
    this.clock = deps.clock ?? systemClock;
    this.frame = deps.frame ?? nextFrame;
    const hostKey = fromBase64UrlExact(record.hostBoxPublicKey, 32);
    if (!hostKey) throw new Error('host record holds an invalid host key'); // decoded by schema: a bug
    this.client = new DeviceClient({
      deviceId: record.deviceId,
      deviceKeys: deps.deviceKey,
      hostBoxPublicKey: hostKey,
      connect: deps.connect,
      clock: this.clock,
      ...(deps.random ? { random: deps.random } : {}),
      ...(deps.jitter ? { jitter: deps.jitter } : {}),
    });
    this.status = new Store<ClientState>(this.client.state);
    this.approvalState = new HostApprovals(this.client, this.clock);
    this.approvals = this.approvalState.pending;
    const random = deps.random ?? secureRandom;
    this.outbox = new Outbox({
      hostId: record.hostId,
      link: {
        isOpen: () => this.client.state.name === 'open',
        onOpen: (listener) => this.client.onState((state) => state.name === 'open' && listener()),
        send: (params) => this.client.call('sessions.send', params),
        // The upload code (and the protocol's SHA-256) loads with the first file sent.
        upload: async (sessionId, file) => (await import('../attach/upload.js')).upload(this.client, sessionId, file),
      },
      store: deps.outbox ?? new MemoryOutboxStore(),
      clock: this.clock,
      newId: () => toBase64Url(random(16)),
    });
    this.blobs = new BlobReader(this.client);
    this.path = (deps.connect as Partial<PathConnect>).path;
    this.unsubscribe.push(
      this.client.onState((state) => this.stateChanged(state)),
      this.client.onEvent((event) => this.received(event)),
      this.client.onWatchError((sessionId, error) => this.feeds.get(sessionId)?.watchFailed(error)),
    );
  }

  get hostId(): string {
    return this.record.hostId;
  }

  /** Host events (machines, terminals), for the screens that show them. */
  onHostEvent(listener: (event: HostEvent) => void): () => void {
    this.hostEventListeners.add(listener);
    return () => this.hostEventListeners.delete(listener);
  }

  /**
   * Dials, then shows the cached list while the host answers (an approval opened from a
   * notification waits on the connection alone). A host that refused this device is not dialled.
   */
  async start(): Promise<void> {
    if (!this.record.refused) this.client.start();
    const cached = await this.deps.cache.sessionList(this.hostId);
    this.sessions.update((view) => ({
      list: view.loaded ? view.list : replaceList(view.list, cached?.sessions ?? []),
      fresh: view.fresh,
      loaded: true,
    }));
    await this.outbox.load();
  }

  stop(): void {
    this.outbox.stop();
    for (const feed of this.feeds.values()) feed.close();
    this.feeds.clear();
    this.client.stop();
    for (const off of this.unsubscribe) off();
    void this.saveList();
  }

  /** Dials at once (back online, back in front) instead of waiting out the backoff. */
  reconnectNow(): void {
    this.client.reconnectNow();
  }

  /**
   * Drops the connection and dials again. Used when the device goes offline: the socket is dead
   * but may take a ping timeout to notice; the watches survive and resume from their sequence.
   */
  redial(): void {
    const state = this.client.state.name;
    if (state === 'refused' || state === 'idle') return;
    this.client.stop();
    this.client.start();
  }

  /** The feed of a session, opened on first use; the least recently used beyond MAX_FEEDS closes. */
  feed(sessionId: string): SessionFeed {
    let feed = this.feeds.get(sessionId);
    if (feed) {
      this.feeds.delete(sessionId);
      this.feeds.set(sessionId, feed);
      return feed;
    }
    feed = new SessionFeed(this.hostId, sessionId, this.client, this.deps.cache, this.clock, this.frame);
    this.feeds.set(sessionId, feed);
    void feed.open();
    for (const [id, old] of this.feeds) {
      if (this.feeds.size <= MAX_FEEDS) break;
      old.close();
      this.feeds.delete(id);
    }
    return feed;
  }

  /** Writes every open transcript now (the page is going to the background). */
  async flush(): Promise<void> {
    await Promise.all([...this.feeds.values()].map((feed) => feed.flush()));
    await this.saveList();
  }

  /** Answers an approval now or not at all (host-approvals.ts). */
  answer(approvalId: string, decision: Decision, note?: string): Promise<Result<Approval>> {
    return this.approvalState.answer(approvalId, decision, note);
  }

  private stateChanged(state: ClientState): void {
    this.status.set(state);
    if (state.name !== 'open') {
      if (this.sessions.get().fresh) this.sessions.update((view) => ({ ...view, fresh: false }));
      if (state.name === 'refused') this.deps.saveRecord({ refused: refusal(state.error, this.clock.now()) });
      return;
    }
    this.seen(true);
    this.approvalState.opened(); // first on the wire: a card opened from a notification waits on these alone
    void this.refreshOnOpen();
  }

  private async refreshOnOpen(): Promise<void> {
    const [info, list] = await Promise.all([
      this.client.call('host.info', {}),
      this.client.call('sessions.list', {}),
      this.approvalState.refresh(),
    ]);
    if (info.ok) {
      this.info.set(info.value);
      const { version, models, defaultModel, roots, features, agents } = info.value;
      this.deps.saveRecord({
        name: info.value.name,
        info: { version, models, defaultModel, roots, features, ...(agents ? { agents } : {}) },
      });
    }
    if (list.ok && this.client.state.name === 'open') {
      this.sessions.update((view) => ({
        list: replaceList(view.list, list.value.sessions),
        fresh: true,
        loaded: true,
      }));
      void this.saveList();
    }
    await this.refreshMachines(info.ok ? info.value.features : []);
  }

  /** The machines as the host lists them now; status events keep the list current after. */
  private async refreshMachines(features: readonly string[]): Promise<void> {
    if (!features.includes('machines')) return;
    const listed = await this.client.call('machines.list', {});
    if (listed.ok && this.client.state.name === 'open') this.machines.set(listed.value.machines);
  }

  private received(event: TetherEvent): void {
    this.seen(false);
    if (event.type === 'watch.skipped') return this.feeds.get(event.sessionId)?.skipped(event.after, event.to);
    if (!isSessionEvent(event)) return this.hostEvent(event);
    if (event.type === 'session.updated') {
      const id = event.session.id;
      const before = this.pendingSummaries.get(id) ?? this.sessions.get().list.find((s) => s.id === id);
      this.pendingSummaries.set(id, event.session);
      if (!this.summariesAsked) {
        this.summariesAsked = true;
        this.frame(() => this.mergeSummaries());
      }
      this.scheduleListSave();
      if (before?.pendingApprovals !== event.session.pendingApprovals) this.approvalState.scheduleRefresh();
    } else if (event.type === 'approval.requested' || event.type === 'approval.resolved') {
      this.approvalState.changed(event.approval);
    }
    this.feeds.get(event.sessionId)?.apply(event);
  }

  /** Puts the summaries that came since the last frame into the list, as one change. */
  private mergeSummaries(): void {
    this.summariesAsked = false;
    if (this.pendingSummaries.size === 0) return;
    const summaries = [...this.pendingSummaries.values()];
    this.pendingSummaries.clear();
    this.sessions.update((view) => ({ ...view, list: summaries.reduce(mergeSummary, view.list) }));
  }

  private hostEvent(event: HostEvent): void {
    if (event.type === 'machine.status') {
      const machine = event.machine;
      this.machines.update((list) => [...list.filter((m) => m.id !== machine.id), machine]);
    }
    // host.info says it on each connect; this, each change between.
    if (event.type === 'awake.status') this.info.update((info) => info && { ...info, keepAwake: event.keepAwake });
    for (const listener of this.hostEventListeners) listener(event);
  }

  private seen(force: boolean): void {
    const now = this.clock.now();
    if (!force && now - this.lastSeenSaved < LAST_SEEN_EVERY_MS) return;
    this.lastSeenSaved = now;
    this.deps.saveRecord({ lastSeenAt: now });
  }

  private scheduleListSave(): void {
    if (this.listTimer !== undefined) return;
    this.listTimer = this.clock.setTimeout(() => {
      this.listTimer = undefined;
      void this.saveList();
    }, LIST_SAVE_DELAY_MS);
  }

  private async saveList(): Promise<void> {
    // A hidden page gets no frames: what waits for one is saved all the same.
    this.mergeSummaries();
    const view = this.sessions.get();
    if (!view.loaded) return;
    await this.deps.cache.putSessionList({ hostId: this.hostId, sessions: view.list, savedAt: this.clock.now() });
  }
}

function refusal(error: ProtocolError, at: number): NonNullable<HostRecord['refused']> {
  return { code: error.code, message: error.message, at };
}
