import type { RelayLimits } from '../src/limits.js';

/**
 * The limits every relay bench runs under: the per-connection byte rates and the per-address
 * bounds lifted (defaults: 2 MiB/s a device, 60 connections a burst, 32 unauthenticated and 64 plain
 * sockets per address; the bench's clients all come from 127.0.0.1), so that the figures measure
 * the relay's work rather than its limits. Nothing else changes; production always runs with `DEFAULT_LIMITS`.
 */
export const BENCH_LIMITS: Partial<RelayLimits> = {
  deviceBytesPerSecond: 1e12,
  deviceBurstBytes: 1e12,
  hostBytesPerSecond: 1e12,
  hostBurstBytes: 1e12,
  connectBurst: 1e9,
  connectsPerSecond: 1e9,
  maxPendingAuth: 10_000,
  maxPendingAuthPerAddress: 10_000,
  maxSocketsPerAddress: 1e9,
};
