import type { Attachment, MethodParams, MethodResult, Result } from '@tether/shared-protocol';
import type { OutboxFile } from '../data/records.js';
import { fail, ok } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { OutboxLink } from './outbox.js';
import { DELIVERED_SHOWN_MS, MAX_OUTBOX, MemoryOutboxStore, Outbox } from './outbox.js';

type Send = MethodParams<'sessions.send'>;
type Answer = Result<MethodResult<'sessions.send'>>;

/**
 * A connection to a host that takes each message id once (as the real host does), and can drop
 * with a call in flight: the host took the message, the answer never came.
 */
class FakeLink implements OutboxLink {
  open = false;
  readonly calls: Send[] = [];
  /** What the host has taken, by id. */
  readonly taken = new Map<string, string>();
  /** The next calls' outcome: taken and answered, taken and lost with the link, or refused. */
  script: ('answer' | 'drop-after-taking' | 'drop-before' | 'refuse')[] = [];
  private readonly listeners = new Set<() => void>();

  isOpen(): boolean {
    return this.open;
  }

  onOpen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  setOpen(open: boolean): void {
    this.open = open;
    if (open) for (const listener of this.listeners) listener();
  }

  send(params: Send): Promise<Answer> {
    this.calls.push(params);
    const step = this.script.shift() ?? 'answer';
    if (step === 'refuse') return Promise.resolve(fail('not-found', `no session ${params.id}`));
    if (step === 'drop-before') {
      this.open = false;
      return Promise.resolve(fail('disconnected', 'connection lost before sessions.send was answered'));
    }
    const id = params.clientMessageId!;
    const duplicate = this.taken.has(id);
    if (!duplicate) this.taken.set(id, params.text);
    if (step === 'drop-after-taking') {
      this.open = false;
      return Promise.resolve(fail('disconnected', 'connection lost before sessions.send was answered'));
    }
    return Promise.resolve(ok({ queued: false, ...(duplicate ? { duplicate: true } : {}) }));
  }

  /** Files uploaded, by name; `refuseUpload` answers the next upload with that code. */
  readonly uploads: string[] = [];
  refuseUpload: 'too-large' | 'disconnected' | undefined;

  upload(sessionId: string, file: OutboxFile): Promise<Result<Attachment>> {
    const refused = this.refuseUpload;
    this.refuseUpload = undefined;
    if (refused === 'disconnected') this.open = false;
    if (refused) return Promise.resolve(fail(refused, `refused ${file.name}`));
    this.uploads.push(`${sessionId}/${file.name}`);
    const id = String(file.bytes.length).padStart(64, '0');
    return Promise.resolve(ok({ id, type: 'image/png', size: file.bytes.length, name: file.name }));
  }
}

function setup(store = new MemoryOutboxStore(), link = new FakeLink()) {
  const clock = new ManualClock();
  let ids = 0;
  const outbox = new Outbox({
    hostId: 'h1',
    link,
    store,
    clock,
    newId: () => `msg-id-${String(++ids).padStart(4, '0')}`,
  });
  const marks = () => outbox.items.get().map((i) => `${i.text}:${i.mark}`);
  return { clock, store, link, outbox, marks };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('the outbox', () => {
  it('keeps a message typed offline, marks it waiting, and sends it once the connection opens', async () => {
    const t = setup();
    expect((await t.outbox.send('s1', 'hello')).ok).toBe(true);
    expect(t.marks()).toEqual(['hello:waiting']);
    expect([...t.store.rows.values()].map((r) => r.text)).toEqual(['hello']);
    expect(t.link.calls).toEqual([]);

    t.link.setOpen(true);
    await settle();
    expect(t.link.calls).toEqual([{ id: 's1', text: 'hello', clientMessageId: 'msg-id-0001' }]);
    expect(t.marks()).toEqual(['hello:delivered']);
    expect(t.store.rows.size).toBe(0);
    // The mark stays a while, then the transcript alone shows the message.
    t.clock.advance(DELIVERED_SHOWN_MS);
    expect(t.marks()).toEqual([]);
  });

  it('sends again with the same id after the link dropped before the answer, and the host takes it once', async () => {
    const t = setup();
    t.link.setOpen(true);
    t.link.script = ['drop-after-taking'];
    await t.outbox.send('s1', 'deploy');
    await settle();
    expect(t.marks()).toEqual(['deploy:waiting']);
    expect(t.store.rows.size).toBe(1);

    t.link.setOpen(true);
    await settle();
    expect(t.link.calls.map((c) => c.clientMessageId)).toEqual(['msg-id-0001', 'msg-id-0001']);
    expect([...t.link.taken.values()]).toEqual(['deploy']);
    expect(t.marks()).toEqual(['deploy:delivered']);
    expect(t.store.rows.size).toBe(0);
  });

  it('survives the app being closed: a new page sends what the last one left', async () => {
    const first = setup();
    await first.outbox.send('s1', 'one');
    await first.outbox.send('s1', 'two');
    first.outbox.stop();

    const link = new FakeLink();
    link.open = true;
    const second = setup(first.store, link);
    await second.outbox.load();
    await settle();
    expect(link.calls.map((c) => c.text)).toEqual(['one', 'two']);
    expect(second.marks()).toEqual(['one:delivered', 'two:delivered']);
    expect(first.store.rows.size).toBe(0);
  });

  it('sends in the order typed, one at a time, and stops at a drop until the next open', async () => {
    const t = setup();
    await t.outbox.send('s1', 'a');
    await t.outbox.send('s2', 'b');
    await t.outbox.send('s1', 'c');
    t.link.script = ['answer', 'drop-before'];
    t.link.setOpen(true);
    await settle();
    expect(t.marks()).toEqual(['a:delivered', 'b:waiting', 'c:waiting']);
    t.link.setOpen(true);
    await settle();
    expect(t.link.calls.map((c) => c.text)).toEqual(['a', 'b', 'b', 'c']);
    expect(t.marks()).toEqual(['a:delivered', 'b:delivered', 'c:delivered']);
  });

  it('marks a message the computer refuses as failed, keeps it with the reason, and never sends it again', async () => {
    const t = setup();
    t.link.open = true;
    t.link.script = ['refuse'];
    await t.outbox.send('gone', 'hi');
    await settle();
    expect(t.outbox.items.get()).toMatchObject([{ text: 'hi', mark: 'failed', error: 'no session gone' }]);
    expect([...t.store.rows.values()]).toMatchObject([{ text: 'hi', failed: 'no session gone' }]);

    const again = setup(t.store, t.link);
    await again.outbox.load();
    t.link.setOpen(true);
    await settle();
    expect(t.link.calls).toHaveLength(1);
    expect(again.marks()).toEqual(['hi:failed']);
    await again.outbox.discard(again.outbox.items.get()[0]!.id);
    expect(again.marks()).toEqual([]);
    expect(t.store.rows.size).toBe(0);
  });

  it('holds at most MAX_OUTBOX waiting messages and refuses the next, saying so', async () => {
    const t = setup();
    for (let i = 0; i < MAX_OUTBOX; i++) expect((await t.outbox.send('s1', `m${i}`)).ok).toBe(true);
    const refused = await t.outbox.send('s1', 'one too many');
    expect(refused.ok === false && refused.error.code).toBe('busy');
    expect(t.store.rows.size).toBe(MAX_OUTBOX);
  });

  it('does not send a message before the device has kept it', async () => {
    let finishWrite!: () => void;
    const store = new MemoryOutboxStore();
    const slow = Object.assign(Object.create(store) as MemoryOutboxStore, {
      putOutbox: (record: Parameters<MemoryOutboxStore['putOutbox']>[0]) =>
        new Promise<boolean>(
          (resolve) => (finishWrite = () => resolve(store.rows.set(record.id, record) !== undefined)),
        ),
    });
    const t = setup(slow);
    t.link.open = true;
    const sending = t.outbox.send('s1', 'careful');
    await settle();
    expect(t.link.calls).toEqual([]);
    finishWrite();
    await sending;
    await settle();
    expect(t.link.calls.map((c) => c.text)).toEqual(['careful']);
  });

  it("uploads a message's photos before the message, and again after a drop (the computer keeps what it has)", async () => {
    const { link, outbox, store } = setup();
    const photo: OutboxFile = { name: 'p.jpg', type: 'image/jpeg', bytes: new Uint8Array(1234) };
    await outbox.send('s1', '', [photo]);
    expect(store.rows.size).toBe(1);
    expect([...store.rows.values()][0]!.attachments?.[0]?.bytes.length).toBe(1234);
    link.refuseUpload = 'disconnected';
    link.setOpen(true);
    await settle();
    expect(outbox.items.get()[0]?.mark).toBe('waiting');
    expect(link.calls).toHaveLength(0);
    link.setOpen(true);
    await settle();
    expect(link.uploads).toEqual(['s1/p.jpg']);
    expect(link.calls).toEqual([
      { id: 's1', text: '', clientMessageId: 'msg-id-0001', attachments: ['1234'.padStart(64, '0')] },
    ]);
    expect(outbox.items.get()[0]?.mark).toBe('delivered');
  });

  it('a photo the computer refuses for good marks the message failed, kept for the person to read why', async () => {
    const { link, outbox } = setup();
    link.setOpen(true);
    link.refuseUpload = 'too-large';
    await outbox.send('s1', 'look', [{ name: 'big.jpg', type: 'image/jpeg', bytes: new Uint8Array(10) }]);
    await settle();
    expect(outbox.items.get()[0]).toMatchObject({ mark: 'failed', error: 'refused big.jpg' });
    expect(link.calls).toHaveLength(0);
  });
});
