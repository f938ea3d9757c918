import type { HostRecord } from '../data/records.js';
import type { HostConnection } from '../net/host-connection.js';
import type { PathState } from '../net/relay-path-connect.js';
import { unreachableText } from '../net/relay-paths.js';
import { useStore } from './use-store.js';

const UNKNOWN: PathState = { current: null, plan: { paths: [] } };

/** Which way the app reaches a computer: " · direct" or " · via relay" once connected. */
export function HostPathLabel({
  connection,
  connected,
}: {
  connection: HostConnection | undefined;
  connected: boolean;
}) {
  const path = useStore(connection?.path, UNKNOWN);
  if (!connected || !path.current) return null;
  return (
    <span class="path" data-host-path={path.current}>
      {path.current === 'relay' ? ' · via relay' : ' · direct'}
    </span>
  );
}

/** Says why a computer cannot be reached from this page at all, instead of "offline" forever. */
export function HostUnreachable({ connection, host }: { connection: HostConnection | undefined; host: HostRecord }) {
  const path = useStore(connection?.path, UNKNOWN);
  if (!path.plan.unreachable) return null;
  return (
    <p class="row-meta error-text" role="alert" data-host-path="none" data-unreachable={path.plan.unreachable}>
      {unreachableText(path.plan.unreachable, host.apiBase)}
    </p>
  );
}
