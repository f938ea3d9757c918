import Database from 'better-sqlite3';
import { chmodSync, existsSync } from 'node:fs';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/**
 * Opens the host's SQLite database in WAL mode and brings its schema up to date.
 *
 * `synchronous = NORMAL` with WAL: a commit is durable once it returns as far as the host process
 * is concerned (a kill -9 loses nothing committed); only a power cut or OS crash can lose the
 * last moments of the WAL. Every write the host acknowledges (an appended event, an answered
 * approval) has committed first.
 */
export function openDatabase(path: string): Db {
  const fresh = path !== ':memory:' && !existsSync(path);
  const db = new Database(path);
  if (fresh) chmodSync(path, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(`the database is from a newer Tether (schema ${current}; this one knows ${MIGRATIONS.length})`);
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
