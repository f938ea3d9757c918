import type { AgentInfo, AgentSession, AgentSessionList, ProtocolError } from '@tether/shared-protocol';
import { useState } from 'preact/hooks';
import type { HostConnection } from '../net/host-connection.js';
import { relativeTime } from './relative-time.js';
import { useNow } from './use-now.js';
import { VisibleText } from './visible-text.js';

interface Props {
  connection: HostConnection;
  agent: AgentInfo;
  /** The folder chosen on the new-session screen. */
  cwd: string;
  /** '' is the host's own computer; otherwise a machine's name. */
  place: string;
  /** A session to open: the one just made, or the one that continues it already. */
  onOpen: (sessionId: string) => void;
}

/** Where a listed session ran, next to the folder asked about. */
export function folderText(folder: string, cwd: string): string {
  if (cwd === folder) return 'this folder';
  const prefix = folder.endsWith('/') ? folder : `${folder}/`;
  return cwd.startsWith(prefix) ? cwd.slice(prefix.length) : cwd;
}

/** Why a listing failed, in words for the person. */
export function listingError(error: ProtocolError, agent: string): string {
  if (error.code === 'unknown-method') return "This computer's Tether cannot list an agent's sessions yet: update it.";
  if (error.code === 'forbidden') return error.message;
  if (error.code === 'busy') return 'The computer is listing sessions already: try again in a moment.';
  return `Could not list ${agent}'s sessions: ${error.message}`;
}

/**
 * An agent's own earlier sessions in the chosen folder (those started at the computer), asked
 * for on a tap because each listing starts the agent for a moment. Continuing one opens a session
 * that loads it: its conversation so far in the transcript, the next message a turn of it. An
 * agent that cannot list or open its sessions says so. Titles are the agent's text: their hidden
 * characters are shown as marks.
 */
export function AgentSessions({ connection, agent, cwd, place, onOpen }: Props) {
  const [list, setList] = useState<AgentSessionList | null>(null);
  const [listedFor, setListedFor] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const now = useNow(60_000);
  const folder = cwd.trim();
  const key = `${agent.name}\n${place}\n${folder}`;
  const shown = listedFor === key ? list : null;

  const load = async () => {
    setBusy(true);
    setError('');
    const result = await connection.client.call('agents.sessions', {
      agent: agent.name,
      cwd: folder,
      ...(place !== '' ? { place } : {}),
    });
    setBusy(false);
    if (!result.ok) return setError(listingError(result.error, agent.title));
    setList(result.value);
    setListedFor(key);
  };

  const open = async (session: AgentSession) => {
    if (session.continuedBy !== undefined) return onOpen(session.continuedBy);
    setBusy(true);
    setError('');
    const result = await connection.client.call('sessions.continue', {
      agent: agent.name,
      id: session.id,
      cwd: session.cwd,
      ...(place !== '' ? { place } : {}),
      ...(session.title !== '' ? { title: session.title } : {}),
    });
    setBusy(false);
    if (!result.ok) return setError(`Could not continue it: ${result.error.message}`);
    onOpen(result.value.session.id);
  };

  return (
    <section class="agent-sessions" aria-label={`Earlier sessions of ${agent.title}`}>
      <h2 class="section-title">Continue a session started at the computer</h2>
      <button type="button" disabled={busy || folder === ''} onClick={() => void load()}>
        {busy && !shown ? 'Looking…' : `Earlier sessions of ${agent.title} in this folder`}
      </button>
      {shown && !shown.canContinue && (
        <p class="row-meta" role="status" data-continue="unavailable">
          Continuing isn't available for {agent.title}:{' '}
          <VisibleText text={shown.reason ?? 'it cannot open its sessions'} />
        </p>
      )}
      {shown?.canContinue && shown.sessions.length === 0 && (
        <p class="row-meta" role="status">
          No earlier sessions of {agent.title} in this folder.
        </p>
      )}
      {shown?.canContinue && shown.sessions.length > 0 && (
        <>
          <ul class="folders agent-session-list" aria-label={`Sessions of ${agent.title}`} aria-busy={busy}>
            {shown.sessions.map((session) => (
              <li key={session.id}>
                <button type="button" disabled={busy} onClick={() => void open(session)}>
                  <span class="row-title">
                    {session.title === '' ? 'Untitled session' : <VisibleText text={session.title} />}
                  </span>
                  <span class="row-meta">
                    {session.updatedAt === null ? 'time unknown' : relativeTime(session.updatedAt, now)} ·{' '}
                    <VisibleText text={folderText(folder, session.cwd)} />
                    {session.continuedBy !== undefined ? ' · open in Tether' : ''}
                  </span>
                </button>
              </li>
            ))}
          </ul>
          {shown.truncated && (
            <p class="row-meta">
              The newest {shown.sessions.length}; {agent.title} has more.
            </p>
          )}
          {!shown.showsHistory && (
            <p class="row-meta">
              {agent.title} cannot replay a session: continuing one goes on from it without showing the conversation so
              far.
            </p>
          )}
        </>
      )}
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
