import { hostDisplayName } from '../data/records.js';
import { useApp } from './app-context.js';
import { ApprovalCard, NotesReachAgent } from './approval-card.js';
import { formatRoute } from '../lib/route.js';
import { TopBar } from './top-bar.js';
import { useStore } from './use-store.js';
import { useWaiting } from './use-waiting.js';

/** Every approval waiting for an answer, on every paired computer. */
export function WaitingScreen({ back }: { back?: string }) {
  const { app } = useApp();
  const waiting = useWaiting(app);
  const hosts = useStore(app.hosts);
  return (
    <div class="screen" data-screen="waiting">
      <TopBar title="Waiting for you" back={back} />
      <div class="scroll">
        {waiting.length === 0 ? (
          <p class="placeholder">Nothing is waiting for an answer.</p>
        ) : (
          <ul class="rows">
            {waiting.map(({ hostId, approval }) => {
              const host = hosts.find((h) => h.hostId === hostId);
              const connection = app.connection(hostId);
              const session = connection?.sessions.get().list.find((s) => s.id === approval.sessionId);
              return (
                <li key={`${hostId}/${approval.id}`}>
                  <NotesReachAgent.Provider value={host?.scopes.includes('chat') ?? false}>
                    <ApprovalCard
                      approval={approval}
                      deviceId={host?.deviceId}
                      onAnswer={
                        connection && host?.scopes.includes('approve')
                          ? (decision, note) => connection.answer(approval.id, decision, note)
                          : undefined
                      }
                      context={
                        <p class="row-meta">
                          {host ? hostDisplayName(host) : 'Computer'} ·{' '}
                          <a href={formatRoute({ name: 'session', hostId, sessionId: approval.sessionId })}>
                            {session?.title ?? 'open the session'}
                          </a>
                        </p>
                      }
                    />
                  </NotesReachAgent.Provider>
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </div>
  );
}
