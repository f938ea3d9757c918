import type { ClientState, MachineInfo } from '@tether/shared-protocol';
import { hostDisplayName } from '../data/records.js';
import type { SessionsView } from '../net/host-connection.js';
import { useApp } from './app-context.js';
import { HostsLoading } from './hosts-loading.js';
import { HostPathLabel } from './host-path.js';
import { hostStatus } from './host-status.js';
import { MachinesList } from './machines-list.js';
import { formatRoute } from '../lib/route.js';
import { SessionRow } from './session-row.js';
import { TerminalButton } from './terminal-button.js';
import { TopBar } from './top-bar.js';
import { useNow } from './use-now.js';
import { useStore } from './use-store.js';

const NO_SESSIONS: SessionsView = { list: [], fresh: false, loaded: false };
const IDLE: ClientState = { name: 'idle' };
const NO_MACHINES: MachineInfo[] = [];

/** A host's sessions, newest first, with "New session". */
export function SessionsScreen({
  hostId,
  currentSessionId,
  back,
}: {
  hostId: string;
  currentSessionId?: string;
  back?: string;
}) {
  const { app, online, navigate } = useApp();
  useStore(app.connectionsVersion);
  const ready = useStore(app.ready);
  const isOnline = useStore(online);
  const hosts = useStore(app.hosts);
  const now = useNow();
  const record = hosts.find((h) => h.hostId === hostId);
  const connection = app.connection(hostId);
  const sessions = useStore(connection?.sessions, NO_SESSIONS);
  const state = useStore(connection?.status, IDLE);
  const machines = useStore(connection?.machines, NO_MACHINES);
  const offlineMachines = new Set(machines.filter((m) => m.status === 'offline').map((m) => m.name));

  if (!record) {
    return (
      <div class="screen">
        <TopBar title="Computer" back={back ?? formatRoute({ name: 'home' })} />
        {ready ? <p class="placeholder">This computer is not paired with this device.</p> : <HostsLoading />}
      </div>
    );
  }
  const status = hostStatus(state, record, isOnline, now);
  return (
    <div class="screen" data-screen="sessions">
      <TopBar
        title={hostDisplayName(record)}
        sub={
          <>
            <span class={`chip ${status.kind}`} data-host-status={status.kind}>
              {status.text}
            </span>
            <HostPathLabel connection={connection} connected={status.kind === 'connected'} />
            {sessions.loaded && !sessions.fresh && sessions.list.length > 0 && <span class="stale"> · not live</span>}
          </>
        }
        back={back ?? formatRoute({ name: 'home' })}
      >
        {record.scopes.includes('chat') && status.kind !== 'refused' && (
          <button type="button" class="primary" onClick={() => navigate(formatRoute({ name: 'new', hostId }))}>
            New session
          </button>
        )}
        {status.kind !== 'refused' && <TerminalButton hostId={hostId} />}
      </TopBar>
      <div class="scroll">
        {status.kind === 'refused' ? (
          <p class="placeholder">
            {status.text}. <a href={formatRoute({ name: 'add', hostId })}>Pair again</a>
          </p>
        ) : sessions.list.length === 0 ? (
          <p class="placeholder">{sessions.loaded && sessions.fresh ? 'No sessions yet.' : 'Loading sessions…'}</p>
        ) : (
          <ul class="rows" aria-label="Sessions">
            {sessions.list.map((session) => (
              <SessionRow
                key={session.id}
                hostId={hostId}
                session={session}
                current={session.id === currentSessionId}
                now={now}
                machineOffline={offlineMachines.has(session.place)}
              />
            ))}
          </ul>
        )}
        {connection && status.kind !== 'refused' && <MachinesList connection={connection} now={now} />}
      </div>
    </div>
  );
}
