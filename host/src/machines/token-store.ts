import { createHash, timingSafeEqual } from 'node:crypto';
import type { TokenInfo } from '@tether/shared-protocol';
import { secureRandom, toBase64Url } from '@tether/shared-protocol';
import type { Db } from '../store/database.js';

/**
 * Bearer tokens for machines. A token is `tmt.<id>.<secret>`: the id finds its row, the secret is
 * kept only as its SHA-256 and compared in constant time. The token itself is shown once, when it
 * is made, and never stored, logged or shown again.
 */
export const TOKEN_PREFIX = 'tmt';
/** Bytes of a token's secret: 256 bits, beyond any guessing. */
const SECRET_BYTES = 32;

interface Row {
  id: string;
  name: string;
  scope: string;
  hash: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface TokenRecord extends TokenInfo {
  revokedAt: number | null;
}

function fromRow(row: Row): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    scope: 'machine',
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revoked: row.revoked_at !== null,
    revokedAt: row.revoked_at,
  };
}

const hashOf = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

export type TokenCheck = { ok: true; token: TokenRecord } | { ok: false; why: 'unknown' | 'revoked'; name?: string };

export class TokenStore {
  constructor(private readonly db: Db) {}

  /** Mints a token; the returned text is the only copy there will ever be. */
  create(name: string, at: number): { token: string; record: TokenRecord } {
    const id = `tk_${toBase64Url(secureRandom(9))}`;
    const secret = toBase64Url(secureRandom(SECRET_BYTES));
    this.db
      .prepare('INSERT INTO tokens (id, name, scope, hash, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(id, name, 'machine', hashOf(secret), at);
    return { token: `${TOKEN_PREFIX}.${id}.${secret}`, record: this.get(id)! };
  }

  get(id: string): TokenRecord | undefined {
    const row = this.db.prepare('SELECT * FROM tokens WHERE id = ?').get(id) as Row | undefined;
    return row && fromRow(row);
  }

  list(): TokenRecord[] {
    return (this.db.prepare('SELECT * FROM tokens ORDER BY created_at').all() as Row[]).map(fromRow);
  }

  /** Which token this is, if any: unknown and malformed look alike; a revoked one says so. */
  check(token: string): TokenCheck {
    const [prefix, id, secret, ...rest] = token.split('.');
    if (prefix !== TOKEN_PREFIX || !id || !secret || rest.length > 0) return { ok: false, why: 'unknown' };
    const row = this.db.prepare('SELECT * FROM tokens WHERE id = ?').get(id) as Row | undefined;
    // The hash is compared in full even for an unknown id, so timing says nothing about ids.
    const expected = Buffer.from(row?.hash ?? hashOf(''), 'hex');
    const same = timingSafeEqual(expected, Buffer.from(hashOf(secret), 'hex'));
    if (!row || !same || row.scope !== 'machine') return { ok: false, why: 'unknown' };
    if (row.revoked_at !== null) return { ok: false, why: 'revoked', name: row.name };
    return { ok: true, token: fromRow(row) };
  }

  touch(id: string, at: number): void {
    this.db.prepare('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(at, id);
  }

  revoke(id: string, at: number): boolean {
    return (
      this.db.prepare('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes === 1
    );
  }
}
