import type { PairingLink, Result } from '@tether/shared-protocol';
import { formatConfirmationCode } from '@tether/shared-protocol';
import { useEffect, useState } from 'preact/hooks';
import type { HostRecord } from '../data/records.js';
import type { NotKept } from '../data/storage-health.js';
import { deviceLabel } from '../lib/device-label.js';
import type { PairingError, StorageRoundTrip } from '../net/pairing.js';
import { describePairingError, startPairing } from '../net/connection-kit.js';
import { pairingElsewhereText, pairingRoute } from '../net/relay-pairing.js';
import { useApp } from './app-context.js';
import { linkErrorText } from './link-error-text.js';
import { formatRoute } from '../lib/route.js';
import { TopBar } from './top-bar.js';
import { useStore } from './use-store.js';

type Phase =
  /** `code` once the computer answered the commit; none before. */
  | { name: 'waiting'; code?: string }
  /** No code here: after a failure a stale code must not be compared with a new request. */
  | { name: 'failed'; error: PairingError }
  | { name: 'elsewhere'; text: string };

/**
 * Pairing with a link: the code to compare, "confirm on your computer", then straight on to the
 * computer's sessions; a deny or a timeout says so and offers to try again. A pairing this
 * device's storage would not keep is never shown as done: the screen says why.
 */
export function PairScreen({ back }: { back?: string }) {
  const { app, navigate } = useApp();
  const target = useStore(app.pairingLink);
  const [attempt, setAttempt] = useState(0);
  const [phase, setPhase] = useState<Phase | null>(null);

  useEffect(() => {
    if (!target?.ok) return undefined;
    return pair(
      target.value,
      (value) => app.roundTrip(value),
      (next) => setPhase(next),
      (host) => app.addHost(host),
      (host) => {
        // Replace: Back from the sessions leads home, not to a spent pairing screen.
        navigate(formatRoute({ name: 'host', hostId: host.hostId }), { replace: true });
        app.pairingLink.set(null);
      },
    );
  }, [target, attempt, app, navigate]);

  if (!target) {
    return (
      <div class="screen" data-screen="pair">
        <TopBar title="Pairing" back={back} />
        <p class="placeholder">
          No pairing link. <a href={formatRoute({ name: 'add' })}>Add a computer</a>
        </p>
      </div>
    );
  }
  if (!target.ok) {
    return (
      <div class="screen" data-screen="pair">
        <TopBar title="Pairing" back={back} />
        <div class="scroll">
          <p class="error-text" role="alert">
            {linkErrorText(target.error)}
          </p>
          <a href={formatRoute({ name: 'add' })}>Scan or paste another link</a>
        </div>
      </div>
    );
  }
  const code = phase?.name === 'waiting' ? phase.code : undefined;
  return (
    <div class="screen" data-screen="pair">
      <TopBar title="Pairing" back={back} />
      <div class="scroll center" aria-live="polite">
        {code && (
          <>
            <p>Your code</p>
            <p class="code" data-pairing-code={code} aria-label={`Pairing code ${code.split('').join(' ')}`}>
              {formatConfirmationCode(code)}
            </p>
          </>
        )}
        {phase?.name === 'waiting' && !code && <p role="status">Reaching the computer…</p>}
        {phase?.name === 'waiting' && code && (
          <p role="status">
            <strong>Confirm on your computer.</strong> Check that it shows the same code, then allow it there.
          </p>
        )}
        {phase?.name === 'failed' && <Failure error={phase.error} onRetry={() => setAttempt((n) => n + 1)} />}
        {phase?.name === 'elsewhere' && (
          <p class="error-text" role="alert" data-pairing-error="elsewhere">
            {phase.text}
          </p>
        )}
      </div>
    </div>
  );
}

function Failure({ error, onRetry }: { error: PairingError; onRetry: () => void }) {
  const { text, retry } = describePairingError(error);
  return (
    <>
      <p class="error-text" role="alert" data-pairing-error={error.code}>
        {text}
      </p>
      <div class="form-actions center-actions">
        {retry && (
          <button type="button" class="primary" onClick={onRetry}>
            Try again
          </button>
        )}
        <a href={formatRoute({ name: 'add' })}>Scan another code</a>
      </div>
    </>
  );
}

/**
 * Runs one pairing attempt: saves the host once paired, then calls `paired` (unless the screen
 * went away meanwhile); a host that could not be saved is a failure. Returns a cancel for when
 * the screen goes away first.
 */
function pair(
  link: PairingLink,
  roundTrip: StorageRoundTrip,
  show: (phase: Phase) => void,
  save: (host: HostRecord) => Promise<Result<void, NotKept>>,
  paired: (host: HostRecord) => void,
): () => void {
  // The page's CSP lets it reach only its own origin: the computer it was opened from, or a relay.
  const route = pairingRoute(link, location.origin);
  if (route.kind === 'elsewhere') {
    show({ name: 'elsewhere', text: pairingElsewhereText(route.unreachable, route.apiBase) });
    return () => {};
  }
  let live = true;
  const attempt = startPairing(link, {
    apiBase: route.apiBase,
    pairUrl: route.pairUrl,
    label: deviceLabel(navigator.userAgent, navigator.maxTouchPoints),
    fetch: (input, init) => fetch(input, init),
    now: () => Date.now(),
    onCode: (code) => {
      if (live) show({ name: 'waiting', code });
    },
    roundTrip,
  });
  show({ name: 'waiting' });
  void attempt.done.then(async (result) => {
    if (!live) return;
    if (!result.ok) return show({ name: 'failed', error: result.error });
    // Saved even when the screen went away meanwhile: the computer has allowed this device.
    const saved = await save(result.value);
    if (!live) return;
    if (saved.ok) paired(result.value);
    else show({ name: 'failed', error: saved.error });
  });
  return () => {
    live = false;
    attempt.cancel();
  };
}
