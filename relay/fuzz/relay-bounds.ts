import { LIMITS, board, ports } from './relay-world.js';
import { hosts } from './relay-hosts.js';
import { failure } from './relay-run.js';

/** Memory the relay holds must all be in its outboxes, within their bounds; the counts must add up. */
export function checkBounds(): void {
  for (const port of ports) if (port.isClosed) ports.delete(port);
  const census = board.census;
  if (census.open !== ports.size) failure(`the census counts ${census.open} open sockets, there are ${ports.size}`);
  if (census.pending < 0 || census.pending > census.open) failure(`the census counts ${census.pending} pending`);
  if (census.pending > LIMITS.maxPendingAuth + 64) failure('pending sockets past their bound');
  let queued = 0;
  let pending = 0;
  for (const host of hosts) {
    const outbox = host.link.peer.outbox;
    if (!host.port.isClosed) queued += outbox.bytes;
    pending += host.link.pendingRequests;
    if (outbox.frames > LIMITS.hostOutboxFrames) failure('a host outbox holds more frames than its bound');
    if (outbox.bytes > LIMITS.hostOutboxBytes + 16 * 1024) failure('a host outbox holds more bytes than its bound');
    if (host.link.pendingRequests > LIMITS.maxPendingRequestsPerHost) failure('a host has too many waiting requests');
    for (const device of host.devices) {
      if (device.port.isClosed) continue;
      const o = device.conn.peer.outbox;
      queued += o.bytes;
      if (o.frames > LIMITS.deviceOutboxFrames) failure('a device outbox holds more frames than its bound');
      if (o.bytes > LIMITS.deviceOutboxBytes + 16 * 1024) failure('a device outbox holds more bytes than its bound');
    }
  }
  if (board.budget.used !== queued) failure(`the node budget says ${board.budget.used} bytes, outboxes hold ${queued}`);
  if (board.budget.used > LIMITS.nodeQueuedBytes + 16 * 1024) failure('the node holds more bytes than its budget');
  if (board.requests.size !== pending)
    failure(`the node counts ${board.requests.size} waiting requests, hosts ${pending}`);
}
