import { RELAY_MAX_SOURCE_BYTES } from './relay-limits.js';
import type { ByteReader } from './byte-cursor.js';

/** Codes and checks that relay frames' encoder (relay-frame.ts) and decoder (relay-frame-decode.ts) share. */

/** What a connection the relay opens on a host link is. Only devices, for now. */
export type RelayConnKind = 'device';
export const KIND_CODES: Record<RelayConnKind, number> = { device: 1 };

/** The `about` frame's flag: the relay serves the app's pages. */
export const ABOUT_SERVES_APP = 0x01;

/**
 * Reply statuses are what an HTTP response with a body may carry, so the relay can always pass
 * one on: 200–599 but 204, 205 and 304, which carry no body (a `Response` with one throws).
 */
export function isHttpStatus(status: number): boolean {
  return (
    Number.isInteger(status) && status >= 200 && status <= 599 && status !== 204 && status !== 205 && status !== 304
  );
}

export function readSource(r: ByteReader): string | undefined {
  const length = r.u8();
  if (length === undefined || length === 0 || length > RELAY_MAX_SOURCE_BYTES) return undefined;
  return r.text(length);
}
