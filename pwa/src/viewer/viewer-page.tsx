import type { ClientState, HostInfo, ProtocolError } from '@tether/shared-protocol';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { AttachmentSource } from '../attach/attachment-context.js';
import { sessionStatusText } from '../ui/session-status.js';
import { TranscriptView } from '../ui/transcript-view.js';
import { useStore } from '../ui/use-store.js';
import type { ViewerConnection } from './viewer-connection.js';
import '../styles/share.css';

/**
 * What a share link opens: one session's transcript, live, read-only, with the app's own windowed
 * reader and escaping. There is nothing to answer or send here: an approval shows that it waits,
 * without its buttons; the host refuses anything more from this link whatever a page asks.
 */
export function ViewerPage({ viewer }: { viewer: ViewerConnection }) {
  const status = useStore(viewer.status);
  const info = useStore(viewer.info);
  const latest = useStore(viewer.summary);
  const view = useStore(viewer.feed.view);
  const [findOpen, setFindOpen] = useState(false);
  const sessionId = viewer.link.sessionId;
  const summary = latest ?? view.transcript.summary;
  const live = status.name === 'open' && view.loaded && view.transcript.lastSeq >= (summary?.lastSeq ?? 0);
  const photos = info?.view?.includePhotos ?? false;
  const attachments = useMemo(() => (photos ? { reader: viewer.blobs, sessionId } : null), [photos, viewer]);
  const loadOlder = useCallback((gapId?: string) => viewer.feed.loadOlder(gapId), [viewer]);

  useEffect(() => {
    document.title = summary ? `${summary.title} · Tether` : 'Shared session · Tether';
  }, [summary?.title]);

  return (
    <main class="layout narrow viewer">
      <div class="pane detail">
        <div class="screen" data-screen="viewer" data-viewer-state={status.name}>
          <header class="top-bar">
            <h1>
              <span class="title">{summary?.title ?? 'Shared session'}</span>
              <span class="sub">
                {summary && (
                  <span class={`chip ${summary.status}`} data-session-status={summary.status}>
                    {sessionStatusText(summary)}
                  </span>
                )}{' '}
                read-only{info ? ` · shared from ${info.name}` : ''}
                {!live && view.loaded && status.name !== 'refused' && <span class="stale"> · not live</span>}
              </span>
            </h1>
            <div class="actions">
              <button type="button" aria-pressed={findOpen} onClick={() => setFindOpen((open) => !open)}>
                Find
              </button>
            </div>
          </header>
          <ViewerBanner status={status} info={info} watchError={view.watchError} />
          <div class="session-body">
            {view.loaded ? (
              <AttachmentSource.Provider value={attachments}>
                <TranscriptView
                  transcript={view.transcript}
                  live={live}
                  savedSeq={view.savedSeq}
                  deviceId={undefined}
                  onAnswer={undefined}
                  onLoadOlder={loadOlder}
                  loadingOlder={view.loadingOlder}
                  olderError={view.olderError?.message}
                  findOpen={findOpen}
                  onFind={setFindOpen}
                />
              </AttachmentSource.Provider>
            ) : (
              <p class="placeholder">Loading…</p>
            )}
          </div>
          <p class="viewer-note">
            A read-only link: this one session, live. Secrets are masked, and nothing can be answered or sent from here.
            {info?.view && ` It works until ${new Date(info.view.expiresAt).toLocaleString()}.`}
          </p>
        </div>
      </div>
    </main>
  );
}

/** Why the page is not live, in words: the link ended, the computer is out of reach, or connecting. */
function ViewerBanner({
  status,
  info,
  watchError,
}: {
  status: ClientState;
  info: HostInfo | null;
  watchError: ProtocolError | null;
}) {
  let text: string | undefined;
  if (status.name === 'refused') {
    // A link that ended is told so, sealed; its end, when the page learnt it, says which way.
    const end = info?.view?.expiresAt;
    text =
      status.error.code !== 'revoked'
        ? `The computer refused this link: ${status.error.message}`
        : end === undefined
          ? 'This link no longer works: it was revoked or has expired. Ask for a new one.'
          : Date.now() >= end
            ? 'This link has expired. Ask for a new one.'
            : 'This link was revoked. Ask for a new one.';
  } else if (watchError) text = `This session cannot be shown: ${watchError.message}`;
  else if (status.name === 'waiting') text = `Can't reach the computer (${status.error.message}); trying again…`;
  else if (status.name === 'connecting' && status.attempt > 1) text = 'Connecting to the computer…';
  if (!text) return null;
  return (
    <p class="banner" role="alert" data-viewer-banner={status.name}>
      {text}
    </p>
  );
}
