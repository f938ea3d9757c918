import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from './database.js';
import { MIGRATIONS } from './migrations.js';
import { SessionStore } from './session-store.js';

/** A database as the host before the `agent` field left it: schema 6, with one session of each kind. */
function storeFromBefore(): Database.Database {
  const db = new Database(':memory:');
  for (const [version, sql] of MIGRATIONS.slice(0, 6).entries()) {
    db.exec(sql);
    db.pragma(`user_version = ${version + 1}`);
  }
  const insert = db.prepare(
    `INSERT INTO sessions (id, title, kind, place, cwd, model, status, created_at, updated_at)
     VALUES (?, ?, ?, 'local', '/p', ?, 'idle', 0, 0)`,
  );
  insert.run('own', 'Fix the build', 'agent', 'anthropic:claude-sonnet-4-5');
  insert.run('acp', 'Review', 'acp', 'claude');
  insert.run('wrapped', 'vim', 'terminal', 'vim notes.txt');
  return db;
}

describe("a session's agent", () => {
  it('is filled for the sessions stored before it had a field: the ACP agent, the wrapped program, none', () => {
    const db = storeFromBefore();
    migrate(db);
    const sessions = new SessionStore(db);
    expect(sessions.get('own')).toMatchObject({ model: 'anthropic:claude-sonnet-4-5', agent: null });
    expect(sessions.get('acp')).toMatchObject({ model: 'claude', agent: 'claude' });
    expect(sessions.get('wrapped')).toMatchObject({ model: 'vim notes.txt', agent: 'vim' });
  });

  it('is in the summary when there is one, and the model stays what it was', () => {
    const db = storeFromBefore();
    migrate(db);
    const sessions = new SessionStore(db);
    const own = sessions.summary(sessions.get('own')!);
    expect(own.model).toBe('anthropic:claude-sonnet-4-5');
    expect('agent' in own).toBe(false);
    expect(sessions.summary(sessions.get('acp')!)).toMatchObject({ kind: 'acp', model: 'claude', agent: 'claude' });
  });

  it('is stored for a new session when given', () => {
    const db = new Database(':memory:');
    migrate(db);
    const sessions = new SessionStore(db);
    const record = { title: 't', place: 'local', cwd: '/p', status: 'idle', createdAt: 0, updatedAt: 0 } as const;
    sessions.insert({ ...record, id: 'a', kind: 'acp', model: 'codex', agent: 'codex' });
    sessions.insert({ ...record, id: 'b', kind: 'agent', model: 'demo' });
    expect(sessions.get('a')?.agent).toBe('codex');
    expect(sessions.get('b')?.agent).toBeNull();
  });
});
