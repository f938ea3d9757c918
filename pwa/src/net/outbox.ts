import type {
  Attachment,
  Clock,
  MethodParams,
  MethodResult,
  ProtocolError,
  Result,
  TimerHandle,
} from '@tether/shared-protocol';
import type { OutboxFile, OutboxRecord } from '../data/records.js';
import { Store } from '../lib/store.js';

/**
 * The outbox: messages typed for one computer, kept in IndexedDB until the computer has taken
 * them, so that nothing typed offline (or sent as the link drops) is lost, even when the app is
 * closed in between. Each message carries its own id (`clientMessageId`), made when it was typed;
 * the host takes each id once, so sending again after a drop never doubles a message.
 *
 * Marks: `waiting` (kept here, not handed to a connection), `sent` (handed to an open
 * connection, no answer yet), `delivered` (the computer answered: it is on the computer),
 * `failed` (the computer refused it for good: kept until discarded, never sent again).
 *
 * Messages go one at a time, oldest first, so a computer takes them in the order typed. Approval
 * answers never come here: an answer that cannot reach the computer says so at once.
 */

export type OutboxMark = 'waiting' | 'sent' | 'delivered' | 'failed';

export interface OutboxItem {
  id: string;
  sessionId: string;
  text: string;
  createdAt: number;
  mark: OutboxMark;
  /** Delivered: the computer queued it for the end of the running turn. */
  queued?: boolean;
  /** Failed: what the computer said. */
  error?: string;
  /** Photos and files sent with it: uploaded first, then named by the message. */
  attachments?: OutboxFile[];
}

/** Where the outbox is kept: AppDb (IndexedDB) in the app, a map in tests. */
export interface OutboxStore {
  outbox(hostId: string): Promise<OutboxRecord[]>;
  putOutbox(record: OutboxRecord): Promise<boolean>;
  deleteOutbox(id: string): Promise<boolean>;
}

/** The connection as the outbox uses it. */
export interface OutboxLink {
  isOpen(): boolean;
  /** Called each time the connection opens. */
  onOpen(listener: () => void): () => void;
  send(params: MethodParams<'sessions.send'>): Promise<Result<MethodResult<'sessions.send'>>>;
  /** Uploads a file for a session (a file the session holds already is not sent again). */
  upload(sessionId: string, file: OutboxFile): Promise<Result<Attachment>>;
}

export interface OutboxDeps {
  hostId: string;
  link: OutboxLink;
  store: OutboxStore;
  clock: Clock;
  /** A fresh message id (8–64 of A–Z a–z 0–9 _ -), unguessable so two devices never collide. */
  newId: () => string;
}

/** How long (ms) a delivered message keeps its "on the computer" mark before the transcript alone shows it. */
export const DELIVERED_SHOWN_MS = 5000;
/** Messages kept waiting per computer; past it a new one is refused (the person is told). */
export const MAX_OUTBOX = 200;

/** Errors after which the same message may go again on the next connection. */
const RETRYABLE = new Set<ProtocolError['code']>([
  'disconnected',
  'channel-closed',
  'host-offline',
  'timeout',
  'unavailable',
  'busy',
  'rate-limited',
]);

export class Outbox {
  readonly items = new Store<OutboxItem[]>([]);
  private draining = false;
  /** The connection opened again while a drain was finishing: drain once more. */
  private again = false;
  private readonly timers = new Set<TimerHandle>();
  /** Messages whose write to the storage has not finished: not sent until it has. */
  private readonly keeping = new Set<string>();
  private readonly off: () => void;

  constructor(private readonly deps: OutboxDeps) {
    this.off = deps.link.onOpen(() => this.drain());
  }

  /** Reads what an earlier page left waiting, then sends it if the connection is open. */
  async load(): Promise<void> {
    const kept = await this.deps.store.outbox(this.deps.hostId);
    this.items.update((items) => {
      const known = new Set(items.map((i) => i.id));
      const earlier = kept
        .filter((r) => !known.has(r.id))
        .map((r): OutboxItem => ({ ...itemOf(r), mark: r.failed === undefined ? 'waiting' : 'failed' }));
      return [...earlier, ...items];
    });
    this.drain();
  }

  /**
   * Puts a message in the outbox and sends it when it can. Refused (not kept) only when the
   * outbox is full; `kept` is false when the device's storage did not keep it (it still goes
   * while the page stays open).
   */
  async send(sessionId: string, text: string, attachments: OutboxFile[] = []): Promise<Result<{ kept: boolean }>> {
    if (this.items.get().filter((i) => i.mark !== 'delivered').length >= MAX_OUTBOX) {
      return { ok: false, error: { code: 'busy', message: `${MAX_OUTBOX} messages are already waiting` } };
    }
    const record: OutboxRecord = {
      id: this.deps.newId(),
      hostId: this.deps.hostId,
      sessionId,
      text,
      createdAt: this.deps.clock.now(),
      ...(attachments.length > 0 ? { attachments } : {}),
    };
    // Shown at once; sent only once it is kept, so a message never reaches the computer and is
    // then lost from the device's view of it.
    this.keeping.add(record.id);
    this.items.update((items) => [...items, { ...itemOf(record), mark: 'waiting' }]);
    const kept = await this.deps.store.putOutbox(record);
    this.keeping.delete(record.id);
    this.drain();
    return { ok: true, value: { kept } };
  }

  /** Drops a message that failed (the person read why). */
  async discard(id: string): Promise<void> {
    this.items.update((items) => items.filter((i) => i.id !== id));
    await this.deps.store.deleteOutbox(id);
  }

  stop(): void {
    this.off();
    for (const timer of this.timers) this.deps.clock.clearTimeout(timer);
    this.timers.clear();
  }

  /** Sends what waits, one at a time, while the connection stays open. */
  drain(): void {
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = true;
    void this.drainAll().finally(() => {
      this.draining = false;
      if (this.again) {
        this.again = false;
        if (this.deps.link.isOpen()) this.drain();
      }
    });
  }

  private async drainAll(): Promise<void> {
    for (;;) {
      this.again = false;
      // In order: a message still being written holds back the ones typed after it.
      const next = this.items.get().find((i) => i.mark === 'waiting');
      if (next && this.keeping.has(next.id)) return;
      if (!next || !this.deps.link.isOpen()) return;
      this.mark(next.id, { mark: 'sent' });
      const result = await this.deliver(next);
      if (result.ok) {
        this.mark(next.id, { mark: 'delivered', queued: result.value.queued });
        await this.deps.store.deleteOutbox(next.id);
        this.forgetLater(next.id);
      } else if (RETRYABLE.has(result.error.code)) {
        this.mark(next.id, { mark: 'waiting' });
        // The next open sends it again (with the same id); an open that came meanwhile counts.
        if (!this.again) return;
      } else {
        this.mark(next.id, { mark: 'failed', error: result.error.message });
        await this.deps.store.putOutbox({ ...recordOf(this.deps.hostId, next), failed: result.error.message });
      }
    }
  }

  /** Uploads a message's files (again after a drop: the computer keeps what it has), then sends it. */
  private async deliver(item: OutboxItem): Promise<Result<MethodResult<'sessions.send'>>> {
    const ids: string[] = [];
    for (const file of item.attachments ?? []) {
      const uploaded = await this.deps.link.upload(item.sessionId, file);
      if (!uploaded.ok) return uploaded;
      ids.push(uploaded.value.id);
    }
    return this.deps.link.send({
      id: item.sessionId,
      text: item.text,
      clientMessageId: item.id,
      ...(ids.length > 0 ? { attachments: ids } : {}),
    });
  }

  private mark(id: string, change: Partial<OutboxItem>): void {
    this.items.update((items) => items.map((i) => (i.id === id ? { ...i, ...change } : i)));
  }

  private forgetLater(id: string): void {
    const timer = this.deps.clock.setTimeout(() => {
      this.timers.delete(timer);
      this.items.update((items) => items.filter((i) => i.id !== id));
    }, DELIVERED_SHOWN_MS);
    this.timers.add(timer);
  }
}

function itemOf(record: OutboxRecord): Omit<OutboxItem, 'mark'> {
  return {
    id: record.id,
    sessionId: record.sessionId,
    text: record.text,
    createdAt: record.createdAt,
    ...(record.failed !== undefined ? { error: record.failed } : {}),
    ...(record.attachments ? { attachments: record.attachments } : {}),
  };
}

function recordOf(hostId: string, item: OutboxItem): OutboxRecord {
  return {
    id: item.id,
    hostId,
    sessionId: item.sessionId,
    text: item.text,
    createdAt: item.createdAt,
    ...(item.attachments ? { attachments: item.attachments } : {}),
  };
}

/** An in-memory OutboxStore, for tests and for when IndexedDB is unavailable. */
export class MemoryOutboxStore implements OutboxStore {
  readonly rows = new Map<string, OutboxRecord>();

  outbox(hostId: string): Promise<OutboxRecord[]> {
    return Promise.resolve(
      [...this.rows.values()]
        .filter((r) => r.hostId === hostId)
        .map((r) => structuredClone(r))
        .sort((a, b) => a.createdAt - b.createdAt),
    );
  }

  putOutbox(record: OutboxRecord): Promise<boolean> {
    this.rows.set(record.id, structuredClone(record));
    return Promise.resolve(true);
  }

  deleteOutbox(id: string): Promise<boolean> {
    this.rows.delete(id);
    return Promise.resolve(true);
  }
}
