import { useState } from 'preact/hooks';
import { useApp } from './app-context.js';
import { formatRoute } from '../lib/route.js';
import { useStore } from './use-store.js';

/** A first size for a new terminal; the screen fits it to itself as soon as it opens. */
const FIRST_SIZE = { cols: 80, rows: 24 };

/**
 * "Terminal": opens a shell on the host, or on one of its machines (in `cwd`, a session's folder,
 * when given) and goes to it. Shown only to a device with the terminal scope, on a host that
 * offers terminals.
 */
export function TerminalButton({
  hostId,
  cwd,
  machine,
  label = 'Terminal',
}: {
  hostId: string;
  cwd?: string;
  /** A machine's name; the host's own computer when absent. */
  machine?: string;
  label?: string;
}) {
  const { app, navigate } = useApp();
  useStore(app.connectionsVersion);
  const hosts = useStore(app.hosts);
  const connection = app.connection(hostId);
  const info = useStore(connection?.info, null);
  const [opening, setOpening] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const record = hosts.find((h) => h.hostId === hostId);
  if (!record?.scopes.includes('terminal')) return null;
  // Until the computer says what it offers, the button keeps its place unseen: a button appearing
  // beside "New session" as the connection comes up would move it under a finger already on its way.
  if (!connection || info === null)
    return (
      <button type="button" class="placeholder-button" disabled tabIndex={-1} aria-hidden="true">
        {label}
      </button>
    );
  if (!info.features.includes('terminals')) return null;

  const open = async () => {
    setOpening(true);
    setError(undefined);
    const opened = await connection.client.call('terminals.open', {
      ...FIRST_SIZE,
      ...(cwd ? { cwd } : {}),
      ...(machine !== undefined ? { machine } : {}),
    });
    setOpening(false);
    if (!opened.ok) return setError(opened.error.message);
    navigate(formatRoute({ name: 'terminal', hostId, terminalId: opened.value.terminalId }));
  };

  return (
    <>
      <button type="button" disabled={opening} onClick={() => void open()} data-action="open-terminal">
        {opening ? 'Opening…' : label}
      </button>
      {error !== undefined && (
        <span class="inline-error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}
