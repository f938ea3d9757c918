import type { Result } from '@tether/shared-protocol';
import {
  acceptMachineLink,
  generateBoxKeyPair,
  memoryPipe,
  openMachineLink,
  ok,
  secureRandom,
} from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import type { LinkPeer } from '@tether/shared-protocol';
import { nodeLinkAead } from '../../link/node-link-aead.js';
import type { MachineExecutor } from '../machine-executor.js';

/**
 * A host and a machine on an in-memory pipe with a sealed link between them, the machine end
 * served by `executor`: requests go through the real handshake, frames and schemas.
 */
export async function linkTo(
  executor: MachineExecutor,
  onHostEvent?: (event: unknown) => void,
): Promise<{ host: LinkPeer; machine: LinkPeer; clock: ManualClock }> {
  const clock = new ManualClock();
  const [machineEnd, hostEnd] = memoryPipe();
  const hostKeys = generateBoxKeyPair();
  const [host, machine] = await Promise.all([
    acceptMachineLink(hostEnd, { clock, random: secureRandom, aead: nodeLinkAead, hostKeys }),
    openMachineLink(machineEnd, {
      clock,
      random: secureRandom,
      aead: nodeLinkAead,
      checkHostKey: () => ok(undefined),
    }),
  ]);
  if (!host.ok || !machine.ok) throw new Error('the link did not open');
  if (onHostEvent) host.value.onEvent = onHostEvent;
  const peer = machine.value.peer;
  peer.onRequest = (method, params) => executor.handle(method, params);
  peer.onEvent = (event) => executor.event(event);
  executor.attach((event) => peer.notify(event).ok);
  return { host: host.value, machine: peer, clock };
}

export const code = (r: Result<unknown>) => (r.ok ? 'ok' : r.error.code);
