import type { Approval } from '@tether/shared-protocol';
import { useEffect, useState } from 'preact/hooks';
import type { AppModel } from '../app/app-model.js';
import { useStore } from './use-store.js';

export interface WaitingApproval {
  hostId: string;
  approval: Approval;
}

/** Every approval waiting for an answer, across all paired hosts, oldest first. */
export function useWaiting(app: AppModel): WaitingApproval[] {
  const version = useStore(app.connectionsVersion);
  const [, setTick] = useState(0);
  useEffect(() => {
    const offs = app.allConnections().map((c) => c.approvals.subscribe(() => setTick((n) => n + 1)));
    setTick((n) => n + 1);
    return () => offs.forEach((off) => off());
  }, [app, version]);
  return app
    .allConnections()
    .flatMap((c) => c.approvals.get().map((approval) => ({ hostId: c.hostId, approval })))
    .sort((a, b) => a.approval.createdAt - b.approval.createdAt);
}
