import type { ProtocolError, ShareExpiry, ShareLinkInfo } from '@tether/shared-protocol';
import { MAX_SHARE_NAME } from '@tether/shared-protocol';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { HostConnection, SessionsView } from '../net/host-connection.js';
import { useApp } from './app-context.js';
import { copyText } from './copy-text.js';
import { HostsLoading } from './hosts-loading.js';
import { QrCode } from './qr-code.js';
import { relativeTime } from './relative-time.js';
import { TopBar } from './top-bar.js';
import { useStore } from './use-store.js';
import '../styles/share.css';

const NO_SESSIONS: SessionsView = { list: [], fresh: false, loaded: false };
/** Viewer counts on the list are read again this often (ms) while the screen is shown. */
const LIST_REFRESH_MS = 5000;

const EXPIRIES: { value: ShareExpiry; label: string }[] = [
  { value: '1h', label: '1 hour' },
  { value: '1d', label: '1 day' },
  { value: '7d', label: '7 days' },
];

interface Made {
  url: string;
  relayUrl?: string | undefined;
  link: ShareLinkInfo;
}

/**
 * Share a session read-only: make a link (how long, a name, whether photos go with it), shown once
 * as its URL and QR code; and the session's links, with who is viewing now, each revocable. The
 * link's holder follows this session only, masked as the lock screen is; the computer enforces it.
 */
export function ShareScreen({ hostId, sessionId, back }: { hostId: string; sessionId: string; back?: string }) {
  const { app } = useApp();
  useStore(app.connectionsVersion);
  const ready = useStore(app.ready);
  const connection = app.connection(hostId);
  const sessions = useStore(connection?.sessions, NO_SESSIONS);
  const title = sessions.list.find((s) => s.id === sessionId)?.title ?? 'Session';
  if (!connection) {
    return (
      <div class="screen">
        <TopBar title="Share" back={back} />
        {ready ? <p class="placeholder">This computer is not paired with this device.</p> : <HostsLoading />}
      </div>
    );
  }
  return (
    <div class="screen" data-screen="share">
      <TopBar title={`Share “${title}”`} sub="read-only link" back={back} />
      <div class="scroll">
        <ShareBody connection={connection} sessionId={sessionId} />
      </div>
    </div>
  );
}

function ShareBody({ connection, sessionId }: { connection: HostConnection; sessionId: string }) {
  const [expires, setExpires] = useState<ShareExpiry>('1d');
  const [name, setName] = useState('');
  const [photos, setPhotos] = useState(false);
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<Made | null>(null);
  const [error, setError] = useState<ProtocolError | null>(null);
  const [links, setLinks] = useState<ShareLinkInfo[] | null>(null);
  const [copied, setCopied] = useState(false);

  const refresh = useCallback(async () => {
    const listed = await connection.client.call('share.list', { sessionId });
    if (listed.ok) setLinks(listed.value.links);
    else setError(listed.error);
  }, [connection, sessionId]);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), LIST_REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  const create = async () => {
    setBusy(true);
    setError(null);
    setCopied(false);
    const result = await connection.client.call('share.create', {
      sessionId,
      expires,
      includePhotos: photos,
      ...(name.trim() ? { name: name.trim() } : {}),
    });
    setBusy(false);
    if (!result.ok) return setError(result.error);
    setMade(result.value);
    void refresh();
  };

  const revoke = async (id: string) => {
    const result = await connection.client.call('share.revoke', { id });
    if (!result.ok) setError(result.error);
    if (made?.link.id === id) setMade(null);
    void refresh();
  };

  return (
    <>
      {made ? (
        <section class="share-made" aria-label="New link">
          <QrCode text={made.url} label="QR code of the link" />
          <p class="share-url" data-share-url={made.url}>
            {made.url}
          </p>
          <div class="form-actions">
            <button type="button" class="primary" onClick={() => void copyText(made.url).then(setCopied)}>
              {copied ? 'Copied' : 'Copy link'}
            </button>
            <button type="button" onClick={() => setMade(null)}>
              Done
            </button>
          </div>
          <p class="hint">
            Shown only now: the computer keeps no copy. Whoever holds it follows this session until{' '}
            {new Date(made.link.expiresAt).toLocaleString()}, or until you revoke it.
          </p>
          {made.relayUrl && (
            <p class="hint">
              From another network, through the relay’s page (its operator decides what that page runs):{' '}
              <span class="share-url">{made.relayUrl}</span>
            </p>
          )}
        </section>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <label for="share-expires">Works for</label>
          <select id="share-expires" value={expires} onChange={(e) => setExpires(e.currentTarget.value as ShareExpiry)}>
            {EXPIRIES.map((x) => (
              <option key={x.value} value={x.value}>
                {x.label}
              </option>
            ))}
          </select>
          <label for="share-name">Name (for you to know it by)</label>
          <input
            id="share-name"
            type="text"
            maxLength={MAX_SHARE_NAME}
            value={name}
            placeholder="for the review"
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <label class="check">
            <input type="checkbox" checked={photos} onChange={(e) => setPhotos(e.currentTarget.checked)} /> Include
            photos and files sent with messages
          </label>
          <p class="hint">
            The link shows this session only, live and read-only: no answers, no messages, no terminal. Secrets in
            commands and output are masked, as on the lock screen.
          </p>
          <div class="form-actions">
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Making…' : 'Make link'}
            </button>
          </div>
        </form>
      )}
      {error && (
        <p class="error-text" role="alert">
          {error.message}
        </p>
      )}
      <h2 class="section-title">Links to this session</h2>
      {links === null ? (
        <p class="hint">Loading…</p>
      ) : links.length === 0 ? (
        <p class="hint">None yet.</p>
      ) : (
        <ul class="share-links" aria-label="Links to this session">
          {links.map((link) => (
            <li key={link.id} data-share-link={link.id} data-state={link.state}>
              <span class="grow">
                <strong>{link.name || 'Link'}</strong> ·{' '}
                {link.state === 'active' ? `${link.viewers} viewing` : link.state}
                <br />
                <span class="hint">
                  by {link.createdBy} ·{' '}
                  {link.lastSeenAt === null ? 'never opened' : `seen ${relativeTime(link.lastSeenAt, Date.now())}`} ·{' '}
                  {link.state === 'active' ? `until ${new Date(link.expiresAt).toLocaleString()}` : ''}
                </span>
              </span>
              {link.state === 'active' && (
                <button type="button" class="danger" onClick={() => void revoke(link.id)}>
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
