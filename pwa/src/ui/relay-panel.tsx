import type { RelayStandingInfo } from '@tether/shared-protocol';
import { useEffect, useState } from 'preact/hooks';
import type { HostRecord } from '../data/records.js';
import { useApp } from './app-context.js';
import { relayLine } from './relay-standing.js';
import { useNow } from './use-now.js';

/** Milliseconds between asks while the panel is open: a held relay's wait counts down meanwhile. */
const REFRESH_MS = 5_000;

/**
 * The computer's relays, each with its state and why (`relay.status`, what `tether status` shows):
 * which one the computer is linked through, which are spares, which refused it and until when.
 * Loaded only when the person opens it from the computer's row.
 */
export function RelayPanel({ host }: { host: HostRecord }) {
  const { app } = useApp();
  const connection = app.connection(host.hostId);
  const [relays, setRelays] = useState<RelayStandingInfo[] | undefined>(undefined);
  const [problem, setProblem] = useState('');
  const now = useNow(1_000);

  useEffect(() => {
    if (!connection) return undefined;
    let live = true;
    const ask = async () => {
      const answer = await connection.client.call('relay.status', {});
      if (!live) return;
      if (answer.ok) {
        setRelays(answer.value.relays);
        setProblem('');
      } else {
        setProblem(
          answer.error.code === 'unsupported'
            ? 'This computer does not say how its relays stand (it may need an update).'
            : 'Connect to the computer to see its relays.',
        );
      }
    };
    void ask();
    const timer = setInterval(() => void ask(), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [connection]);

  if (problem)
    return (
      <p class="row-meta relays" role="status">
        {problem}
      </p>
    );
  if (!relays)
    return (
      <p class="row-meta relays" role="status">
        Asking the computer…
      </p>
    );
  return (
    <ul class="relays" aria-label="Relays">
      {relays.map((standing) => {
        const line = relayLine(standing, now);
        return (
          <li key={standing.url} data-relay-state={standing.state}>
            <span class="relay-where">{line.where}</span> <span class={`chip ${line.chip}`}>{line.label}</span>
            <span class="relay-why">{line.why}</span>
          </li>
        );
      })}
    </ul>
  );
}
