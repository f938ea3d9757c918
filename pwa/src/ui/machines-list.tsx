import type { HostConnection } from '../net/host-connection.js';
import { relativeTime } from './relative-time.js';
import { TerminalButton } from './terminal-button.js';
import { useStore } from './use-store.js';

/** The machines that lend themselves to this host: status, shared folders, last seen. */
export function MachinesList({ connection, now }: { connection: HostConnection; now: number }) {
  const machines = useStore(connection.machines);
  if (machines.length === 0) return null;
  const sorted = [...machines].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      <h2 class="section-title">Machines</h2>
      <ul class="rows" aria-label="Machines">
        {sorted.map((machine) => (
          <li key={machine.id} class="row" data-machine={machine.name} data-machine-status={machine.status}>
            <span class="row-head">
              <span class="row-title">{machine.name}</span>
              <span class={`chip ${machine.status === 'online' ? 'connected' : 'offline'}`}>{machine.status}</span>
            </span>
            <span class="row-meta">
              {machine.roots.join(', ')}
              {machine.status === 'offline' &&
                ` · last seen ${machine.lastSeenAt === null ? 'never' : relativeTime(machine.lastSeenAt, now)}`}
            </span>
            {machine.status === 'online' && (
              <span class="row-actions">
                <TerminalButton
                  hostId={connection.hostId}
                  machine={machine.name}
                  label={`Terminal on ${machine.name}`}
                />
              </span>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
