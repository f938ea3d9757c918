import type { ClientState } from '@tether/shared-protocol';
import { useState } from 'preact/hooks';
import type { HostRecord } from '../data/records.js';
import { hostDisplayName } from '../data/records.js';
import { totalWaiting } from '../lib/session-list.js';
import type { SessionsView } from '../net/host-connection.js';
import { useApp } from './app-context.js';
import { HostPathLabel, HostUnreachable } from './host-path.js';
import { LazyRelayPanel } from './lazy-relay-panel.js';
import { hostStatus } from './host-status.js';
import { LazyNotificationsPanel } from './lazy-notifications-panel.js';
import { formatRoute } from '../lib/route.js';
import { useStore } from './use-store.js';

const NO_SESSIONS: SessionsView = { list: [], fresh: false, loaded: false };
const IDLE: ClientState = { name: 'idle' };

/** A paired computer: its status, and rename / notifications / unpair. */
export function HostRow({ host, now, current }: { host: HostRecord; now: number; current: boolean }) {
  const { app, online } = useApp();
  const connection = app.connection(host.hostId);
  const state = useStore(connection?.status, IDLE);
  const sessions = useStore(connection?.sessions, NO_SESSIONS);
  const isOnline = useStore(online);
  const [mode, setMode] = useState<'view' | 'rename' | 'unpair' | 'notifications' | 'relays'>('view');
  const [name, setName] = useState('');
  const [message, setMessage] = useState('');
  const status = hostStatus(state, host, isOnline, now);
  const waiting = totalWaiting(sessions.list);
  const displayName = hostDisplayName(host);

  const unpair = async () => {
    const told = await app.unpair(host.hostId);
    if (!told.ok) setMessage('Forgotten here; the computer still lists this device until you revoke it there.');
  };

  return (
    <li data-host-id={host.hostId}>
      <div class="row">
        <a
          class="row-head"
          href={
            status.kind === 'refused'
              ? formatRoute({ name: 'add', hostId: host.hostId })
              : formatRoute({ name: 'host', hostId: host.hostId })
          }
          aria-current={current ? 'page' : undefined}
        >
          <span class="row-title">{displayName}</span>
          {waiting > 0 && (
            <span class="badge" aria-label={`${waiting} waiting for approval`}>
              {waiting}
            </span>
          )}
          <span class={`chip ${status.kind}`} data-host-status={status.kind}>
            {status.kind === 'connected'
              ? 'connected'
              : status.kind === 'connecting'
                ? 'connecting'
                : status.kind === 'refused'
                  ? 'pair again'
                  : 'offline'}
          </span>
        </a>
        <p class="row-meta">
          {status.kind === 'connected'
            ? `${sessions.list.length} ${sessions.list.length === 1 ? 'session' : 'sessions'}`
            : status.text}
          <HostPathLabel connection={connection} connected={status.kind === 'connected'} />
        </p>
        <HostUnreachable connection={connection} host={host} />
        {mode === 'rename' && (
          <form
            class="row-actions"
            onSubmit={(e) => {
              e.preventDefault();
              void app.rename(host.hostId, name).then(() => setMode('view'));
            }}
          >
            <label class="visually-hidden" for={`rename-${host.hostId}`}>
              New name for {displayName}
            </label>
            <input
              id={`rename-${host.hostId}`}
              type="text"
              value={name}
              maxLength={256}
              onInput={(e) => setName(e.currentTarget.value)}
              placeholder={host.name}
            />
            <button type="submit" class="primary">
              Save
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </form>
        )}
        {mode === 'unpair' && (
          <div class="row-actions" role="group" aria-label="Confirm unpair">
            <span>Forget {displayName} on this device?</span>
            <button type="button" class="danger" onClick={() => void unpair()}>
              Unpair
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </div>
        )}
        {(mode === 'notifications' || mode === 'relays') && (
          <>
            {mode === 'notifications' ? <LazyNotificationsPanel host={host} /> : <LazyRelayPanel host={host} />}
            <div class="row-actions">
              <button type="button" class="link" onClick={() => setMode('view')}>
                Done
              </button>
            </div>
          </>
        )}
        {mode === 'view' && (
          <div class="row-actions">
            <button
              type="button"
              class="link"
              onClick={() => {
                setName(displayName);
                setMode('rename');
              }}
            >
              Rename
            </button>
            <button type="button" class="link" onClick={() => setMode('notifications')}>
              Notifications
            </button>
            {host.relay && (
              <button type="button" class="link" onClick={() => setMode('relays')}>
                Relays
              </button>
            )}
            <button type="button" class="link danger" onClick={() => setMode('unpair')}>
              Unpair
            </button>
          </div>
        )}
        {message && <p class="row-meta">{message}</p>}
      </div>
    </li>
  );
}
