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
  return { url: result.value.url, ticket: result.value.ticket };
}
