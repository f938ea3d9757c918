import type { ClientState } from '@tether/shared-protocol';
import { useEffect } from 'preact/hooks';
import { hostDisplayName } from '../data/records.js';
import type { ApprovalLookup } from '../net/host-approvals.js';
import { useApp } from './app-context.js';
import { ApprovalCard } from './approval-card.js';
import { hostStatus } from './host-status.js';
import { HostsLoading } from './hosts-loading.js';
import { markOnce } from './perf-marks.js';
import { formatRoute } from '../lib/route.js';
import { TopBar } from './top-bar.js';
import { useStore } from './use-store.js';

const LOADING: ApprovalLookup = { state: 'loading' };
const IDLE: ClientState = { name: 'idle' };

/**
 * One approval's card, where a tapped notification opens the app (`#/h/<host>/a/<approval>`): the
 * whole action and its answers, or who answered it if that was done elsewhere. It waits on the
 * connection and one `approvals.get` alone: no session list, no transcript (host-approvals.ts).
 * Part of the first download, so nothing is fetched before it can show.
 */
export function ApprovalScreen({ hostId, approvalId, back }: { hostId: string; approvalId: string; back?: string }) {
  const { app, online } = useApp();
  useStore(app.connectionsVersion);
  const ready = useStore(app.ready);
  const hosts = useStore(app.hosts);
  const isOnline = useStore(online);
  const record = hosts.find((h) => h.hostId === hostId);
  const connection = app.connection(hostId);
  const lookup = useStore(connection?.approvalState.lookup(approvalId), LOADING);
  const status = useStore(connection?.status, IDLE);
  const name = record ? hostDisplayName(record) : 'Computer';
  const canAnswer = record?.scopes.includes('approve') ?? false;
  const shown = lookup.state === 'found' ? lookup.approval : undefined;
  const sessionTitle = lookup.state === 'found' ? lookup.sessionTitle : undefined;

  // Read by `npm run bench -- tap-to-approve`: from navigation to the answers on screen.
  useEffect(() => {
    if (shown) markOnce(shown.status === 'pending' && canAnswer ? 'tether:approval-ready' : 'tether:approval-shown');
  }, [shown, canAnswer]);

  let body;
  if (shown) {
    const session = formatRoute({ name: 'session', hostId, sessionId: shown.sessionId });
    body = (
      <ApprovalCard
        approval={shown}
        deviceId={record?.deviceId}
        onAnswer={connection && canAnswer ? (decision, note) => connection.answer(shown.id, decision, note) : undefined}
        context={
          <p class="row-meta">
            {name} · <a href={session}>{sessionTitle ?? 'open the session'}</a>
          </p>
        }
      />
    );
  } else if (lookup.state === 'missing') {
    body = (
      <p class="placeholder" role="status">
        {name} has no such approval: the notification may have come from another computer.
      </p>
    );
  } else if (!ready) {
    body = <HostsLoading />;
  } else if (!record) {
    body = (
      <p class="placeholder" role="alert">
        This device is not paired with the computer that asked.
      </p>
    );
  } else {
    const reach = hostStatus(status, record, isOnline, Date.now());
    body = (
      <p class="placeholder" role="status" data-host-status={reach.kind}>
        {reach.kind === 'connected'
          ? 'Loading the approval…'
          : `${reach.text}: the approval shows once ${name} answers.`}
      </p>
    );
  }
  return (
    <div class="screen" data-screen="approval">
      <TopBar title="Approval" sub={name} back={back} />
      <div class="scroll">{body}</div>
    </div>
  );
}
