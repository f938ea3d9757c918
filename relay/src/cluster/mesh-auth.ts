import { BlockList, isIP } from 'node:net';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The mesh link's proof of the mesh key, and where a link may listen.
 *
 * Both ends prove they hold the key without sending it: each sends a fresh 32-byte nonce, and each
 * answers with an HMAC-SHA-256 under the key over both nonces, both node ids and its role (`dial`
 * or `accept`), so an answer is good for one connection, one pair of nodes and one direction only.
 * Answers are compared in constant time.
 */

/** Bytes of a nonce; a proof is 32 bytes too (HMAC-SHA-256). */
export const NONCE_BYTES = 32;
/** The shortest mesh key taken: 32 bytes, as `openssl rand -base64 32` prints (44). */
export const MIN_MESH_KEY_BYTES = 32;

export type MeshRole = 'dial' | 'accept';

export interface MeshTranscript {
  listenerNonce: Uint8Array;
  dialerNonce: Uint8Array;
  dialer: string;
  listener: string;
}

export function meshNonce(): Buffer {
  return randomBytes(NONCE_BYTES);
}

export function meshProof(key: Uint8Array, role: MeshRole, t: MeshTranscript): Buffer {
  return createHmac('sha256', key)
    .update(`tether relay mesh ${role}\u0000${t.dialer}\u0000${t.listener}\u0000`)
    .update(t.listenerNonce)
    .update(t.dialerNonce)
    .digest();
}

/** Whether `proof` is `expected`, in time that does not depend on where they differ. */
export function proofMatches(proof: Uint8Array, expected: Buffer): boolean {
  return proof.length === expected.length && timingSafeEqual(proof, expected);
}

/**
 * The key as written in a file or the environment: surrounding whitespace trimmed, at least
 * MIN_MESH_KEY_BYTES long. The text is the key (base64 or any other spelling of random bytes).
 * A refusal says how long it is, never what it is.
 */
export function meshKeyFrom(text: string): Uint8Array | string {
  const key = Buffer.from(text.trim(), 'utf8');
  if (key.length < MIN_MESH_KEY_BYTES) {
    return `the mesh key is ${key.length} bytes; it needs at least ${MIN_MESH_KEY_BYTES} (openssl rand -base64 32)`;
  }
  return new Uint8Array(key);
}

const PRIVATE = new BlockList();
PRIVATE.addSubnet('127.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
// Carrier-grade NAT space, where Tailscale gives its addresses.
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4');
PRIVATE.addAddress('::1', 'ipv6');
// Unique local addresses (Tailscale's IPv6 among them).
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

/** Whether a node may listen on, or dial, `address` for the mesh: loopback or a private range only. */
export function isMeshAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE.check(mapped, 'ipv4');
  return PRIVATE.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** `host:port` (IPv6 in brackets) as a node advertises it, or undefined unless it is a mesh address. */
export function parseMeshAddress(text: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|(\d+\.\d+\.\d+\.\d+)):(\d{1,5})$/.exec(text);
  if (!m) return undefined;
  const host = m[1] ?? m[2]!;
  const port = Number(m[3]);
  if (port < 1 || port > 65_535 || !isMeshAddress(host)) return undefined;
  return { host, port };
}

export function formatMeshAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
