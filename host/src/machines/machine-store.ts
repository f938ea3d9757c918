import type { MachineCapability } from '@tether/shared-protocol';
import type { Db } from '../store/database.js';

/** A machine as the host remembers it between its links. */
export interface MachineRecord {
  id: string;
  name: string;
  /** The token that first registered it: the id is bound to it. */
  tokenId: string;
  roots: string[];
  capabilities: MachineCapability[];
  version: string;
  createdAt: number;
  lastSeenAt: number | null;
}

interface Row {
  id: string;
  name: string;
  token_id: string;
  roots: string;
  capabilities: string;
  version: string;
  created_at: number;
  last_seen_at: number | null;
}

function parseList<T>(text: string): T[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

function fromRow(row: Row): MachineRecord {
  return {
    id: row.id,
    name: row.name,
    tokenId: row.token_id,
    roots: parseList<string>(row.roots),
    capabilities: parseList<MachineCapability>(row.capabilities),
    version: row.version,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
  };
}

/** Known machines, and the (machine, token) pairs that were forgotten. */
export class MachineStore {
  constructor(private readonly db: Db) {}

  get(id: string): MachineRecord | undefined {
    const row = this.db.prepare('SELECT * FROM machines WHERE id = ?').get(id) as Row | undefined;
    return row && fromRow(row);
  }

  byName(name: string): MachineRecord | undefined {
    const row = this.db.prepare('SELECT * FROM machines WHERE name = ? COLLATE NOCASE').get(name) as Row | undefined;
    return row && fromRow(row);
  }

  list(): MachineRecord[] {
    return (this.db.prepare('SELECT * FROM machines ORDER BY name').all() as Row[]).map(fromRow);
  }

  /** Records a registration: a new machine, or what a known one says now (and its token). */
  save(record: MachineRecord): void {
    this.db
      .prepare(
        `INSERT INTO machines (id, name, token_id, roots, capabilities, version, created_at, last_seen_at)
         VALUES (@id, @name, @tokenId, @roots, @capabilities, @version, @createdAt, @lastSeenAt)
         ON CONFLICT (id) DO UPDATE SET name = @name, token_id = @tokenId, roots = @roots,
           capabilities = @capabilities, version = @version, last_seen_at = @lastSeenAt`,
      )
      .run({ ...record, roots: JSON.stringify(record.roots), capabilities: JSON.stringify(record.capabilities) });
  }

  touch(id: string, at: number): void {
    this.db.prepare('UPDATE machines SET last_seen_at = ? WHERE id = ?').run(at, id);
  }

  /** Forgets a machine; the token it used may not register that id again. */
  forget(id: string, at: number): boolean {
    return this.db.transaction(() => {
      const record = this.get(id);
      if (!record) return false;
      this.db
        .prepare('INSERT OR REPLACE INTO forgotten_machines (machine_id, token_id, forgotten_at) VALUES (?, ?, ?)')
        .run(id, record.tokenId, at);
      this.db.prepare('DELETE FROM machines WHERE id = ?').run(id);
      return true;
    })();
  }

  wasForgotten(machineId: string, tokenId: string): boolean {
    return (
      this.db
        .prepare('SELECT 1 FROM forgotten_machines WHERE machine_id = ? AND token_id = ?')
        .get(machineId, tokenId) !== undefined
    );
  }
}
