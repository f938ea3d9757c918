import type { SessionSummary } from '@tether/shared-protocol';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { KeyBarState } from '../terminal/key-bar.js';
import type { TerminalStatus } from '../terminal/terminal-model.js';
import { TerminalModel } from '../terminal/terminal-model.js';
import type { XtermView } from '../terminal/xterm-view.js';
import { useApp } from './app-context.js';
import { sessionStatusText } from './session-status.js';
import { TerminalKeyBar } from './terminal-key-bar.js';
import { TopBar } from './top-bar.js';
import { useStore } from './use-store.js';

const CONNECTING: TerminalStatus = { name: 'connecting' };
/** Milliseconds a finger rests on the terminal before its text opens for selecting and copying. */
const LONG_PRESS_MS = 500;

const STATUS_TEXT: Record<TerminalStatus['name'], string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  exited: 'exited',
  gone: 'closed',
};

/**
 * A terminal on the host: xterm (loaded when this screen opens), fitted to the screen and fitted
 * again on rotation and when the keyboard shows or hides; the key bar above the keyboard; and,
 * while the connection is down, "reconnecting" over the last screen instead of a frozen one.
 * With `session`, the terminal is a wrapped program's (`tether run`): named after it, with its
 * state, and the question it waits on above the screen.
 */
export function TerminalScreen({
  hostId,
  terminalId,
  back,
  session,
}: {
  hostId: string;
  terminalId: string;
  back?: string;
  session?: SessionSummary;
}) {
  const { app, navigate } = useApp();
  useStore(app.connectionsVersion);
  const connection = app.connection(hostId);
  const model = useMemo(
    () => (connection ? new TerminalModel(connection.client, terminalId) : undefined),
    [connection, terminalId],
  );
  const status = useStore(model?.status, CONNECTING);
  const container = useRef<HTMLDivElement>(null);
  const [view, setView] = useState<XtermView | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [copyText, setCopyText] = useState<string | undefined>();
  const keys = useMemo(() => new KeyBarState(), []);
  const [, setModifiers] = useState(0);

  useEffect(() => {
    if (!model) return undefined;
    model.start();
    return () => model.stop();
  }, [model]);

  // xterm comes in its own chunk, fetched the first time a terminal opens (precached for offline).
  useEffect(() => {
    const element = container.current;
    if (!model || !element) return undefined;
    let disposed = false;
    let created: XtermView | undefined;
    let offData: (() => void) | undefined;
    import('../terminal/xterm-view.js')
      .then(({ XtermView }) => {
        if (disposed) return;
        created = new XtermView(element);
        offData = created.onData((data) => {
          model.input(keys.apply(data));
          setModifiers((n) => n + 1);
        });
        model.setSink(created);
        const size = created.fit() ?? created.size;
        model.resize(size.cols, size.rows);
        created.focus();
        setView(created);
      })
      .catch((error: unknown) => setLoadError(error instanceof Error ? error.message : String(error)));
    return () => {
      disposed = true;
      offData?.();
      model.setSink(undefined);
      created?.dispose();
    };
  }, [model, keys]);

  // Fit again when the element changes size (rotation, a pane resized) or the keyboard comes
  // and goes (the visual viewport shrinks while the layout viewport does not, on iOS).
  useEffect(() => {
    const element = container.current;
    if (!view || !model || !element) return undefined;
    const refit = () => {
      const size = view.fit();
      if (size) model.resize(size.cols, size.rows);
    };
    const viewport = window.visualViewport;
    const root = document.documentElement;
    const onViewport = () => {
      if (!viewport) return;
      root.style.setProperty('--viewport-height', `${viewport.height}px`);
      root.style.setProperty('--viewport-top', `${viewport.offsetTop}px`);
      refit();
    };
    const observer = new ResizeObserver(refit);
    observer.observe(element);
    viewport?.addEventListener('resize', onViewport);
    viewport?.addEventListener('scroll', onViewport);
    onViewport();
    return () => {
      observer.disconnect();
      viewport?.removeEventListener('resize', onViewport);
      viewport?.removeEventListener('scroll', onViewport);
      root.style.removeProperty('--viewport-height');
      root.style.removeProperty('--viewport-top');
    };
  }, [view, model]);

  // Long-press: the screen's text opens in a sheet where the phone's own selection works.
  const pressTimer = useRef<number | undefined>(undefined);
  const cancelPress = () => {
    if (pressTimer.current !== undefined) window.clearTimeout(pressTimer.current);
    pressTimer.current = undefined;
  };
  const startPress = () => {
    cancelPress();
    pressTimer.current = window.setTimeout(() => {
      pressTimer.current = undefined;
      if (view) setCopyText(view.text());
    }, LONG_PRESS_MS);
  };

  if (!connection || !model) {
    return (
      <div class="screen">
        <TopBar title="Terminal" back={back} />
        <p class="placeholder">This computer is not paired with this device.</p>
      </div>
    );
  }

  const paste = async () => {
    let text: string | null;
    try {
      text = await navigator.clipboard.readText();
    } catch {
      // No clipboard access (plain HTTP, or refused): ask for the text instead.
      text = window.prompt('Paste here');
    }
    if (text) view?.paste(text);
    view?.focus();
  };

  const statusText =
    status.name === 'exited'
      ? `exited${status.code !== null ? ` (${status.code})` : status.signal ? ` (${status.signal})` : ''}`
      : STATUS_TEXT[status.name];
  const message =
    status.name === 'reconnecting'
      ? 'Reconnecting…'
      : status.name === 'gone'
        ? `This terminal is closed: ${status.error.message}`
        : loadError !== undefined
          ? `The terminal could not be loaded: ${loadError}`
          : undefined;

  return (
    <div class="screen terminal-screen" data-screen="terminal" data-terminal-status={status.name}>
      <TopBar
        back={back}
        title={session?.title ?? 'Terminal'}
        sub={
          <>
            {session && (
              <>
                <span class={`chip ${session.status}`} data-session-status={session.status}>
                  {sessionStatusText(session)}
                </span>{' '}
              </>
            )}
            <span data-terminal-state={status.name}>{statusText}</span>
          </>
        }
      >
        <button
          type="button"
          class="danger"
          disabled={status.name === 'gone'}
          onClick={() => {
            // A wrapped program ends with its terminal: ask first, naming it.
            if (session && status.name !== 'exited' && !window.confirm(`End ${session.title}? The program is stopped.`))
              return;
            void model.close().then(() => back !== undefined && navigate(back));
          }}
        >
          {session ? 'End' : 'Close'}
        </button>
      </TopBar>
      {session?.status === 'waiting' && (
        <p class="banner waiting-banner" role="status" data-session-waiting>
          Waiting for you{session.lastLine ? `: ${session.lastLine}` : ''}
        </p>
      )}
      <div class={`terminal-frame ${status.name}`}>
        <div
          class="terminal-view"
          ref={container}
          data-terminal-view
          onTouchStart={startPress}
          onTouchMove={cancelPress}
          onTouchEnd={cancelPress}
          onTouchCancel={cancelPress}
        />
        {message !== undefined && (
          <p class="terminal-message" role="status" data-terminal-message>
            {message}
          </p>
        )}
      </div>
      <TerminalKeyBar
        keys={keys}
        send={(data) => model.input(data)}
        applicationCursor={() => view?.applicationCursor ?? false}
        changed={() => setModifiers((n) => n + 1)}
        paste={() => void paste()}
        copy={() => view && setCopyText(view.text())}
      />
      {copyText !== undefined && (
        <div class="terminal-copy" role="dialog" aria-label="Copy from the terminal">
          <textarea readOnly value={copyText} aria-label="Terminal text" />
          <div class="actions">
            <button
              type="button"
              onClick={() => {
                void navigator.clipboard?.writeText(copyText).catch(() => undefined);
                setCopyText(undefined);
              }}
            >
              Copy all
            </button>
            <button type="button" onClick={() => setCopyText(undefined)}>
              Done
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
