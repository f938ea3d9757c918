import { MAX_SHARE_LINKS_PER_SESSION, SHARE_EXPIRY_MS, viewerKeyPair } from '@tether/shared-protocol';
import { ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../store/database.js';
import { SessionStore } from '../store/session-store.js';
import { ShareStore } from '../store/share-store.js';
import type { LinkEnd } from './share-links.js';
import { ENDED_LINKS_KEPT_MS, ShareLinks } from './share-links.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(path: string, clock: ManualClock) {
  const db = openDatabase(path);
  const sessions = new SessionStore(db);
  const links = new ShareLinks({
    store: new ShareStore(db),
    sessionExists: (id) => sessions.get(id) !== undefined,
    deviceIdTaken: () => false,
    clock,
    random: seededRandom(`links ${path}`),
  });
  const ended: [string, LinkEnd][] = [];
  links.onEnded((id, why) => ended.push([id, why]));
  return { db, sessions, links, ended };
}

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'tether-share-'));
  dirs.push(dir);
  const clock = new ManualClock();
  const path = join(dir, 'tether.db');
  const first = open(path, clock);
  first.sessions.insert({
    id: 's1',
    title: 'one',
    kind: 'agent',
    place: 'local',
    cwd: '/',
    model: 'demo',
    status: 'idle',
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });
  return { clock, path, ...first };
}

describe('share links', () => {
  it('keep only the public key the secret gives, and say when they end', () => {
    const t = setUp();
    const made = t.links.create({ sessionId: 's1', expires: '1h', name: ' for the\u202Ereview ', createdBy: 'Pixel' });
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    const { record, secret } = made.value;
    expect(record.publicKey).toEqual(viewerKeyPair(secret).publicKey);
    const row = t.db.prepare('SELECT * FROM share_links').get() as Record<string, unknown>;
    expect(JSON.stringify(row)).not.toContain(Buffer.from(secret).toString('base64url'));
    expect(record.name).toBe('for the⟨U+202E⟩review');
    expect(t.links.info(record, 2)).toMatchObject({
      scope: 'view:s1',
      viewers: 2,
      state: 'active',
      createdBy: 'Pixel',
    });
    t.clock.advance(SHARE_EXPIRY_MS['1h'] - 1);
    expect(t.ended).toEqual([]);
    t.clock.advance(1);
    expect(t.ended).toEqual([[record.id, 'expired']]);
    expect(t.links.info(t.links.lookup(record.id)!, 0).state).toBe('expired');
  });

  it('are bounded per session, and a session must exist', () => {
    const t = setUp();
    for (let i = 0; i < MAX_SHARE_LINKS_PER_SESSION; i++)
      expect(t.links.create({ sessionId: 's1', createdBy: 'x' }).ok).toBe(true);
    const over = t.links.create({ sessionId: 's1', createdBy: 'x' });
    expect(over.ok ? 'ok' : over.error.code).toBe('busy');
    const first = t.links.list('s1').at(-1)!;
    t.links.revoke(first.id);
    expect(t.links.create({ sessionId: 's1', createdBy: 'x' }).ok).toBe(true);
    const none = t.links.create({ sessionId: 'nope', createdBy: 'x' });
    expect(none.ok ? 'ok' : none.error.code).toBe('not-found');
  });

  it('survive a restart, revoked stays revoked, and the next expiry is still told', () => {
    const t = setUp();
    const kept = t.links.create({ sessionId: 's1', expires: '1d', createdBy: 'x' });
    const gone = t.links.create({ sessionId: 's1', expires: '7d', createdBy: 'x' });
    if (!kept.ok || !gone.ok) throw new Error('not made');
    expect(t.links.revoke(gone.value.record.id).ok).toBe(true);
    expect(t.links.revoke(gone.value.record.id).ok).toBe(true);
    expect(t.ended).toEqual([[gone.value.record.id, 'revoked']]);
    t.links.close();
    t.db.close();
    const again = open(t.path, t.clock);
    const byId = (a: [string, boolean], b: [string, boolean]) => (a[0] < b[0] ? -1 : 1);
    expect(again.links.list().map((l): [string, boolean] => [l.id, l.revokedAt !== null])).toEqual(
      (
        [
          [gone.value.record.id, true],
          [kept.value.record.id, false],
        ] as [string, boolean][]
      ).sort(byId),
    );
    t.clock.advance(SHARE_EXPIRY_MS['1d']);
    expect(again.ended).toEqual([[kept.value.record.id, 'expired']]);
    // Ended links are listed for a while, then forgotten at a start.
    again.links.close();
    again.db.close();
    t.clock.advance(ENDED_LINKS_KEPT_MS + 1);
    const later = open(t.path, t.clock);
    expect(later.links.list()).toEqual([]);
    later.links.close();
    later.db.close();
  });
});
