import type { ClientState, Decision } from '@tether/shared-protocol';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { NO_FEED } from '../net/session-feed.js';
import type { SessionsView } from '../net/host-connection.js';
import { useApp } from './app-context.js';
import { HostsLoading } from './hosts-loading.js';
import { AttachmentSource } from '../attach/attachment-context.js';
import { NotesReachAgent } from './approval-card.js';
import { ChangesView } from './changes-view.js';
import { lazyPart } from './lazy-part.js';
import { Composer } from './composer.js';
import { OutboxList } from './outbox-list.js';
import { SessionMenu } from './session-menu.js';
import { formatRoute } from '../lib/route.js';
import { RunGlance } from './run-glance.js';
import { SteerBar } from './steer-bar.js';
import { useMedia } from './use-media.js';
import { messageBoxOffReason } from './device-scopes.js';
import { markOnce } from './perf-marks.js';
import { isBusy, sessionStatusText } from './session-status.js';
import { TerminalButton } from './terminal-button.js';
import { TerminalScreen } from './lazy-screens.js';
import { TopBar } from './top-bar.js';
import { TranscriptView } from './transcript-view.js';
import { useStore } from './use-store.js';

/** The Git panel's code is fetched the first time Changes opens (the first download's budget). */
const GitPanel = lazyPart(() => import('./git-panel.js').then((m) => m.GitPanel));

/** Wide enough for the Changes view beside the transcript (an iPad in landscape, a desktop). */
const SIDE_BY_SIDE_QUERY = '(min-width: 1100px)';
const NO_SESSIONS: SessionsView = { list: [], fresh: false, loaded: false };
const IDLE: ClientState = { name: 'idle' };

/** One session: its transcript, live; the composer; and Stop while a run is going. */
export function SessionScreen({ hostId, sessionId, back }: { hostId: string; sessionId: string; back?: string }) {
  const { app } = useApp();
  useStore(app.connectionsVersion);
  const ready = useStore(app.ready);
  const hosts = useStore(app.hosts);
  const record = hosts.find((h) => h.hostId === hostId);
  const connection = app.connection(hostId);
  const feed = useMemo(() => connection?.feed(sessionId), [connection, sessionId]);
  const attachments = useMemo(
    () => (connection ? { reader: connection.blobs, sessionId } : null),
    [connection, sessionId],
  );
  const view = useStore(feed?.view, NO_FEED);
  const status = useStore(connection?.status, IDLE);
  const sessions = useStore(connection?.sessions, NO_SESSIONS);
  const info = useStore(connection?.info, null);
  const [stopping, setStopping] = useState(false);
  const [changesOpen, setChangesOpen] = useState(false);
  const [findOpen, setFindOpen] = useState(false);
  const sideBySide = useMedia(SIDE_BY_SIDE_QUERY);
  const { navigate } = useApp();

  const summary = sessions.list.find((s) => s.id === sessionId) ?? view.transcript.summary;
  const live =
    status.name === 'open' && sessions.fresh && view.loaded && view.transcript.lastSeq >= (summary?.lastSeq ?? 0);
  const busy = isBusy(summary?.status);
  const canChat = record?.scopes.includes('chat') ?? false;
  const canApprove = record?.scopes.includes('approve') ?? false;
  const canType = record?.scopes.includes('terminal') ?? false;
  const program = summary?.kind === 'terminal';

  // Stable, so that the transcript is drawn again only when it changed, not with every summary.
  const answer = useCallback(
    (id: string, decision: Decision, note: string) => connection!.answer(id, decision, note),
    [connection],
  );
  const loadOlder = useCallback((gapId?: string) => feed!.loadOlder(gapId), [feed]);

  useEffect(() => {
    if (view.loaded) markOnce('tether:transcript-shown');
  }, [view.loaded]);
  useEffect(() => {
    if (!busy) setStopping(false);
  }, [busy]);

  // Tablet keyboard: Alt+↓/↑ for the next or previous session in the list; Alt+C for Changes.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!event.altKey || event.metaKey || event.ctrlKey) return;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        const list = sessions.list.filter((s) => !s.archived);
        const at = list.findIndex((s) => s.id === sessionId);
        const next = list[at + (event.key === 'ArrowDown' ? 1 : -1)];
        if (at >= 0 && next) {
          event.preventDefault();
          navigate(formatRoute({ name: 'session', hostId, sessionId: next.id }));
        }
      } else if (event.code === 'KeyC') {
        event.preventDefault();
        setChangesOpen((open) => !open);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [sessions.list, sessionId, hostId, navigate]);

  if (!record || !connection) {
    return (
      <div class="screen">
        <TopBar title="Session" back={back} />
        {ready ? <p class="placeholder">This computer is not paired with this device.</p> : <HostsLoading />}
      </div>
    );
  }

  // A wrapped program is its terminal, while the host holds it; after, what the log says of it.
  if (program && summary.terminalId !== undefined && canType)
    return (
      <TerminalScreen
        key={summary.terminalId}
        hostId={hostId}
        terminalId={summary.terminalId}
        back={back}
        session={summary}
      />
    );

  const clear = async () => {
    const result = await connection.client.call('sessions.send', { id: sessionId, text: '/clear' });
    if (!result.ok) return result;
    if (result.value.session) navigate(formatRoute({ name: 'session', hostId, sessionId: result.value.session }));
    return { ok: true as const, value: { kept: true } };
  };

  const stop = async () => {
    setStopping(true);
    const result = await connection.client.call('sessions.interrupt', { id: sessionId });
    if (!result.ok) setStopping(false);
  };

  return (
    <div class="screen" data-screen="session">
      <TopBar
        back={back}
        title={summary?.title ?? 'Session'}
        sub={
          <>
            <span class={`chip ${summary?.status ?? 'idle'}`} data-session-status={summary?.status ?? ''}>
              {summary ? sessionStatusText(summary) : '…'}
            </span>{' '}
            {summary && `${summary.place === 'local' ? 'this computer' : summary.place} · ${summary.cwd}`}
            {!live && view.loaded && <span class="stale"> · not live</span>}
          </>
        }
      >
        {!program && !(changesOpen && !sideBySide) && (
          <button
            type="button"
            aria-label="Find in transcript"
            aria-pressed={findOpen}
            title="Find in transcript (Ctrl+F)"
            onClick={() => setFindOpen((open) => !open)}
          >
            Find
          </button>
        )}
        {!program && (
          <button
            type="button"
            aria-pressed={changesOpen}
            onClick={() => setChangesOpen((open) => !open)}
            title="Files this session changed (Alt+C)"
          >
            Changes
          </button>
        )}
        {busy && canChat && !program && (
          <button type="button" class="danger" disabled={stopping} onClick={() => void stop()}>
            {stopping ? 'Stopping…' : 'Stop'}
          </button>
        )}
        {summary && canChat && (
          <SessionMenu
            session={summary}
            onChange={(notify) => connection.client.call('sessions.configure', { id: sessionId, notify })}
            onShare={() => navigate(formatRoute({ name: 'share', hostId, sessionId }))}
          />
        )}
        {summary && (
          <TerminalButton
            hostId={hostId}
            cwd={summary.cwd}
            {...(summary.place !== 'local' ? { machine: summary.place } : {})}
          />
        )}
      </TopBar>
      {summary && !program && <SteerBar session={summary} client={connection.client} canChat={canChat} />}
      {view.watchError && (
        <p class="banner error-text" role="alert">
          {view.watchError.code === 'not-found'
            ? 'This session no longer exists on the computer.'
            : `This session cannot be followed: ${view.watchError.message}`}
        </p>
      )}
      {summary && !program && (
        <RunGlance
          session={summary}
          awake={info?.keepAwake}
          onGoOn={
            canChat ? () => connection.client.call('sessions.send', { id: sessionId, text: 'Go on.' }) : undefined
          }
          onSetLimit={
            // The model-call limit is the built-in loop's: an agent or a program counts its own.
            canChat && summary.kind === 'agent'
              ? (limit) => connection.client.call('sessions.configure', { id: sessionId, maxModelCalls: limit })
              : undefined
          }
        />
      )}
      <div class={`session-body${changesOpen && sideBySide ? ' side-by-side' : ''}`}>
        {changesOpen && !sideBySide ? null : view.loaded ? (
          <AttachmentSource.Provider value={attachments}>
            <NotesReachAgent.Provider value={canChat}>
              <TranscriptView
                transcript={view.transcript}
                live={live}
                savedSeq={view.savedSeq}
                deviceId={record.deviceId}
                onAnswer={canApprove ? answer : undefined}
                onLoadOlder={feed && loadOlder}
                loadingOlder={view.loadingOlder}
                olderError={view.olderError?.message}
                findOpen={findOpen}
                onFind={setFindOpen}
              />
            </NotesReachAgent.Provider>
          </AttachmentSource.Provider>
        ) : (
          <p class="placeholder">Loading…</p>
        )}
        {changesOpen && (
          <div class="scroll changes-pane">
            <GitPanel
              client={connection.client}
              sessionId={sessionId}
              version={summary?.activity?.toolCalls ?? summary?.lastSeq ?? 0}
            />
            <ChangesView
              client={connection.client}
              sessionId={sessionId}
              version={summary?.activity?.toolCalls ?? summary?.lastSeq ?? 0}
            />
          </div>
        )}
      </div>
      {program ? (
        <p class="placeholder" data-program-note>
          {summary.terminalId === undefined
            ? 'The program has ended.'
            : 'This device may not use terminals: it sees only what the log says of this program.'}
        </p>
      ) : (
        <>
          <OutboxList outbox={connection.outbox} sessionId={sessionId} />
          <Composer
            busy={busy}
            disabledReason={messageBoxOffReason(record.scopes)}
            onSend={(text, files) =>
              // `/clear` opens the session it goes on in: sent at once, not kept for later.
              text === '/clear' && summary?.kind === 'agent' ? clear() : connection.outbox.send(sessionId, text, files)
            }
            commands={() =>
              connection.client
                .call('sessions.controls', { id: sessionId })
                .then((r) => (r.ok ? { ok: true as const, value: r.value.commands } : r))
            }
          />
        </>
      )}
    </div>
  );
}
