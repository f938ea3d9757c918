import type { DeviceClient, HostInfo, RelayDetails } from '@tether/shared-protocol';
import { RELAY_TICKET_RENEW_BEFORE_MS, decodeRelayTicket } from '@tether/shared-protocol';
import type { HostRecord } from '../data/records.js';

/**
 * Whether to ask the host for a relay ticket now: the one held nears its expiry (or does not
 * parse), or there is none and the host says it has a relay (a device paired before the host had
 * one, or paired directly while it did not).
 */
export function needsRelayTicket(
  record: Pick<HostRecord, 'relay'>,
  info: Pick<HostInfo, 'features'>,
  now: number,
): boolean {
  if (!record.relay) return info.features.includes('relay');
  const ticket = decodeRelayTicket(record.relay.ticket);
  return !ticket.ok || ticket.value.expiresAt - now < RELAY_TICKET_RENEW_BEFORE_MS;
}

/**
 * Renews the relay ticket over the sealed channel when it is due; resolves with the new details
 * to keep, or undefined when nothing changed (not due, or the host has no relay any more).
 */
export async function renewRelayTicket(
  client: Pick<DeviceClient, 'call'>,
  record: Pick<HostRecord, 'relay'>,
  info: Pick<HostInfo, 'features'>,
  now: number,
): Promise<RelayDetails | undefined> {
  if (!needsRelayTicket(record, info, now)) return undefined;
  const result = await client.call('relay.ticket', {});
  if (!result.ok) return undefined;
  const { url, ticket, urls } = result.value;
  return { url, ticket, ...(urls ? { urls } : {}) };
}

/**
 * The relay details with the host's list of relays as `host.info` gives it on this connect, or
 * undefined when nothing changed (no ticket yet, an older host that says nothing, the same list).
 * A relay added or removed at the computer since pairing reaches the phone this way.
 */
export function relaysFromInfo(
  record: Pick<HostRecord, 'relay'>,
  info: Pick<HostInfo, 'relays'>,
): RelayDetails | undefined {
  if (!record.relay || !info.relays) return undefined;
  const known = record.relay.urls ?? [record.relay.url];
  if (known.length === info.relays.length && known.every((url, i) => url === info.relays![i])) return undefined;
  return { ...record.relay, urls: [...info.relays] };
}
