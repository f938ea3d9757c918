import { useApp } from './app-context.js';
import { HostRow } from './host-row.js';
import { HostsLoading } from './hosts-loading.js';
import { formatRoute } from '../lib/route.js';
import { TopBar } from './top-bar.js';
import { useNow } from './use-now.js';
import { useStore } from './use-store.js';
import { WaitingLink } from './waiting-link.js';

/** The paired computers, with "Add a computer"; a first-run welcome when there are none. */
export function HostsScreen({ currentHostId }: { currentHostId?: string }) {
  const { app, navigate } = useApp();
  const hosts = useStore(app.hosts);
  const ready = useStore(app.ready);
  const now = useNow();
  return (
    <div class="screen" data-screen="hosts">
      <TopBar title="Tether">{hosts.length > 0 && <WaitingLink />}</TopBar>
      <div class="scroll">
        {!ready ? (
          <HostsLoading />
        ) : hosts.length === 0 ? (
          <div class="center">
            <h2>Follow your coding agents from here</h2>
            <p>
              Run <code>tether start</code> on your computer, then scan the QR code it shows with this device's camera,
              or add the computer here.
            </p>
          </div>
        ) : (
          <>
            <h2 class="section-title">Computers</h2>
            <ul class="rows" aria-label="Computers">
              {hosts.map((host) => (
                <HostRow key={host.hostId} host={host} now={now} current={host.hostId === currentHostId} />
              ))}
            </ul>
          </>
        )}
        <div class="form-actions">
          <button
            type="button"
            class={hosts.length === 0 ? 'primary' : ''}
            onClick={() => navigate(formatRoute({ name: 'add' }))}
          >
            Add a computer
          </button>
        </div>
      </div>
    </div>
  );
}
