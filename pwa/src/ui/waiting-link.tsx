import { useApp } from './app-context.js';
import { formatRoute } from '../lib/route.js';
import { useWaiting } from './use-waiting.js';

/** The header link to the global waiting list, with its count. */
export function WaitingLink() {
  const { app } = useApp();
  const count = useWaiting(app).length;
  return (
    <a class="waiting-link" href={formatRoute({ name: 'waiting' })} aria-label={`Waiting approvals: ${count}`}>
      Waiting {count > 0 && <span class="badge">{count}</span>}
    </a>
  );
}
