import type { Clock, Connect, DeviceKey } from '@tether/shared-protocol';
import { DeviceClient, fromBase64UrlExact } from '@tether/shared-protocol';
import type { HostRecord } from '../data/records.js';

/**
 * What talking to a host needs — the sealed channel, its crypto (tweetnacl) and the connection's
 * feeds — in one chunk the app loads after its first screen (app-model.ts imports it with
 * `import()`, as soon as it starts): the first screen comes from IndexedDB and needs none of it.
 * `npm run bench -- app-size` lists it among the lazy chunks.
 */
export { HostConnection } from './host-connection.js';
export { deviceKeyFor } from './device-key.js';
// Pairing speaks the same sealed protocol: the pairing screen takes it from here, so the two share
// one lazy chunk rather than the bundler hoisting what they share into the first one.
export { describePairingError, startPairing } from './pairing.js';

/** Asks a host once, on a connection of its own, to forget this device: true once it confirmed. */
export async function revokeOnce(
  host: HostRecord,
  deviceKeys: DeviceKey,
  connect: Connect,
  timeoutMs: number,
  clock?: Clock,
): Promise<boolean> {
  const client = new DeviceClient({
    deviceId: host.deviceId,
    deviceKeys,
    hostBoxPublicKey: fromBase64UrlExact(host.hostBoxPublicKey, 32)!, // decoded by schema
    connect,
    ...(clock ? { clock } : {}),
  });
  client.start();
  const result = await client.call('devices.revoke', { id: host.deviceId }, { timeoutMs });
  client.stop();
  return result.ok;
}
