import type { DeviceInfo, Scope } from '@tether/shared-protocol';
import { fingerprint, fromBase64UrlExact, toBase64Url } from '@tether/shared-protocol';
import type { Db } from './database.js';

interface Row {
  id: string;
  public_key: string;
  label: string;
  scopes: string;
  created_at: number;
  last_seen_at: number | null;
  revoked_at: number | null;
}

export interface DeviceRecord extends DeviceInfo {
  publicKey: Uint8Array;
}

function fromRow(row: Row): DeviceRecord {
  const publicKey = fromBase64UrlExact(row.public_key, 32) ?? new Uint8Array(32);
  return {
    id: row.id,
    label: row.label,
    scopes: JSON.parse(row.scopes) as Scope[],
    fingerprint: fingerprint(publicKey),
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    revoked: row.revoked_at !== null,
    publicKey,
  };
}

/** Paired devices: their public keys, labels, scopes, and whether they were revoked. */
export class DeviceStore {
  constructor(private readonly db: Db) {}

  insert(device: {
    id: string;
    publicKey: Uint8Array;
    label: string;
    scopes: readonly Scope[];
    createdAt: number;
  }): DeviceRecord {
    this.db
      .prepare('INSERT INTO devices (id, public_key, label, scopes, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(device.id, toBase64Url(device.publicKey), device.label, JSON.stringify(device.scopes), device.createdAt);
    return this.get(device.id)!;
  }

  get(id: string): DeviceRecord | undefined {
    const row = this.db.prepare('SELECT * FROM devices WHERE id = ?').get(id) as Row | undefined;
    return row && fromRow(row);
  }

  list(): DeviceRecord[] {
    return (this.db.prepare('SELECT * FROM devices ORDER BY created_at').all() as Row[]).map(fromRow);
  }

  /** The key of a device that may connect: known and not revoked. */
  activeKey(id: string): Uint8Array | undefined {
    const device = this.get(id);
    return device && !device.revoked ? device.publicKey : undefined;
  }

  activeCount(): number {
    return this.db.prepare('SELECT COUNT(*) FROM devices WHERE revoked_at IS NULL').pluck().get() as number;
  }

  /** True when a public key already belongs to a device (a phone pairing twice with one key). */
  hasKey(publicKey: Uint8Array): boolean {
    return this.db.prepare('SELECT 1 FROM devices WHERE public_key = ?').get(toBase64Url(publicKey)) !== undefined;
  }

  revoke(id: string, at: number): boolean {
    return (
      this.db.prepare('UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes === 1
    );
  }

  touch(id: string, at: number): void {
    this.db.prepare('UPDATE devices SET last_seen_at = ? WHERE id = ?').run(at, id);
  }
}
