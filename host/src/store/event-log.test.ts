import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from './database.js';
import { EventLog } from './event-log.js';
import { MIGRATIONS } from './migrations.js';
import { SessionStore } from './session-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function addSession(db: Database.Database, id: string, at = 1000): void {
  db.prepare(
    `INSERT INTO sessions (id, title, kind, place, cwd, model, status, created_at, updated_at)
     VALUES (?, 't', 'agent', 'local', '/p', 'demo', 'idle', ?, ?)`,
  ).run(id, at, at);
}

describe("the event log's last sequence number", () => {
  it('is read back from the events after a restart, and numbering goes on without a gap', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-log-'));
    dirs.push(dir);
    const path = join(dir, 'host.db');
    let now = 5000;
    const clock = { now: () => now };
    const db = openDatabase(path);
    addSession(db, 's');
    addSession(db, 'empty');
    const log = new EventLog(db, clock);
    for (let i = 0; i < 3; i++) log.append('s', { type: 'notice', level: 'info', text: `n${i}` });
    db.close();

    now = 9000;
    const again = openDatabase(path);
    const reopened = new EventLog(again, clock);
    expect(reopened.lastSeq('s')).toBe(3);
    expect(reopened.lastSeq('empty')).toBe(0);
    expect(reopened.lastSeq('nobody')).toBe(0);
    expect(reopened.append('s', { type: 'notice', level: 'info', text: 'n3' }).seq).toBe(4);
    expect(reopened.append('empty', { type: 'notice', level: 'info', text: 'first' }).seq).toBe(1);
    expect(() => reopened.append('nobody', { type: 'notice', level: 'info', text: 'x' })).toThrow(/unknown session/);
    expect(reopened.read('s', 0).map((e) => e.seq)).toEqual([1, 2, 3, 4]);

    // The session's summary follows its events: the last seq and when it last changed.
    const sessions = new SessionStore(again);
    expect(sessions.get('s')).toMatchObject({ lastSeq: 4, updatedAt: 9000, createdAt: 1000 });
    expect(sessions.get('empty')).toMatchObject({ lastSeq: 1 });
    expect(sessions.list(false).find((s) => s.id === 's')).toMatchObject({ lastSeq: 4, updatedAt: 9000 });
    expect(sessions.listInFlight()).toEqual([]);
    again.close();
  });

  it('keeps what a database from before kept in the session row: its events are the truth', () => {
    const db = new Database(':memory:');
    for (const [version, sql] of MIGRATIONS.slice(0, 10).entries()) {
      db.exec(sql);
      db.pragma(`user_version = ${version + 1}`);
    }
    addSession(db, 's');
    const insert = db.prepare(
      "INSERT INTO events (session_id, seq, type, payload, at) VALUES ('s', ?, 'notice', ?, ?)",
    );
    for (let seq = 1; seq <= 5; seq++) insert.run(seq, JSON.stringify({ level: 'info', text: `${seq}` }), 2000 + seq);
    db.prepare("UPDATE sessions SET last_seq = 5, updated_at = 2005 WHERE id = 's'").run();
    migrate(db);

    expect(new SessionStore(db).get('s')).toMatchObject({ lastSeq: 5, updatedAt: 2005 });
    const log = new EventLog(db, { now: () => 3000 });
    expect(log.append('s', { type: 'notice', level: 'info', text: '6' }).seq).toBe(6);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
  });
});
