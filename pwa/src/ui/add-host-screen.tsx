import type { ProtocolError } from '@tether/shared-protocol';
import { parsePairingLink } from '@tether/shared-protocol';
import type { FunctionComponent } from 'preact';
import { useCallback, useState } from 'preact/hooks';
import { hostDisplayName } from '../data/records.js';
import { useApp } from './app-context.js';
import { refusedText } from './host-status.js';
import { linkErrorText } from './link-error-text.js';
import { formatRoute } from '../lib/route.js';
import { TopBar } from './top-bar.js';
import { useStore } from './use-store.js';

type Scanner = FunctionComponent<{ onText: (text: string) => boolean }>;

/**
 * "Add a computer": scan the QR code with the camera, or paste the link. With a host id it is
 * "pair again" for a computer that no longer accepts this device.
 */
export function AddHostScreen({ hostId, back }: { hostId?: string; back?: string }) {
  const { app, navigate } = useApp();
  const hosts = useStore(app.hosts);
  const again = hostId ? hosts.find((h) => h.hostId === hostId) : undefined;
  const [Scanner, setScanner] = useState<Scanner | null>(null);
  const [loadingScanner, setLoadingScanner] = useState(false);
  const [pasted, setPasted] = useState('');
  const [error, setError] = useState<ProtocolError | null>(null);
  const [loadFailed, setLoadFailed] = useState(false);

  const take = useCallback(
    (text: string): boolean => {
      const link = parsePairingLink(text);
      if (!link.ok) {
        setError(link.error);
        return false;
      }
      app.pairingLink.set(link);
      navigate(formatRoute({ name: 'pair' }), { replace: true });
      return true;
    },
    [app, navigate],
  );

  const openScanner = async () => {
    setLoadingScanner(true);
    try {
      const module = await import('./qr-scanner.js');
      setScanner(() => module.QrScanner);
    } catch {
      setLoadFailed(true);
    }
    setLoadingScanner(false);
  };

  const cameraPossible = window.isSecureContext && Boolean(navigator.mediaDevices);
  return (
    <div class="screen" data-screen="add">
      <TopBar title={again ? `Pair ${hostDisplayName(again)} again` : 'Add a computer'} back={back} />
      <div class="scroll">
        {again?.refused && (
          <p class="error-text" role="alert">
            {refusedText(again.refused.code)}. To use it from here again, run <code>tether pair</code> on the computer
            and scan the new code.
          </p>
        )}
        <p>
          On the computer, run <code>tether start</code> (or <code>tether pair</code> for a new code), then scan the QR
          code it shows.
        </p>
        {Scanner ? (
          <Scanner onText={(text) => take(text)} />
        ) : cameraPossible ? (
          <button type="button" class="primary" disabled={loadingScanner} onClick={() => void openScanner()}>
            {loadingScanner ? 'Opening the camera…' : 'Scan QR code'}
          </button>
        ) : (
          <p>
            The in-app camera needs HTTPS. Use this device's own camera app on the QR code, or paste the link below.
          </p>
        )}
        {loadFailed && <p class="error-text">The scanner could not be loaded; reload the app while online.</p>}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            take(pasted);
          }}
        >
          <label for="pairing-link">Or paste the pairing link</label>
          <input
            id="pairing-link"
            type="url"
            value={pasted}
            autoComplete="off"
            placeholder="http://…/#pair=1.…"
            onInput={(e) => {
              setPasted(e.currentTarget.value);
              setError(null);
            }}
          />
          <div class="form-actions">
            <button type="submit" class="primary" disabled={pasted.trim() === ''}>
              Pair
            </button>
          </div>
        </form>
        {error && (
          <p class="error-text" role="alert">
            {linkErrorText(error)}
          </p>
        )}
      </div>
    </div>
  );
}
