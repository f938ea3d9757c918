import type { Approval, Decision, ProtocolError, Result } from '@tether/shared-protocol';
import { useId, useState } from 'preact/hooks';
import { approvalOutcome, approvalQuestion } from './approval-text.js';

interface Props {
  approval: Approval;
  /** This device's id on the approval's host, to say "on this device". */
  deviceId: string | undefined;
  /** Undefined when this device may not answer (no `approve` scope). */
  onAnswer: ((decision: Decision, note: string) => Promise<Result<Approval>>) | undefined;
  /** Shown above the question in the global waiting list: which session asks. */
  context?: preact.ComponentChildren;
}

/**
 * An approval: the complete action (wrapped, never cut; a long one scrolls inside the card), the
 * folder and place it runs in, and the three answers. Once answered anywhere, says by whom.
 */
export function ApprovalCard({ approval, deviceId, onAnswer, context }: Props) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ProtocolError | null>(null);
  const noteId = useId();
  const pending = approval.status === 'pending';

  const answer = async (decision: Decision) => {
    if (!onAnswer) return;
    setBusy(true);
    setError(null);
    const result = await onAnswer(decision, note.trim());
    setBusy(false);
    if (!result.ok && result.error.code !== 'already-resolved') setError(result.error);
  };

  return (
    <section
      class={`approval${pending ? '' : ' resolved'}`}
      aria-label={pending ? 'Approval needed' : 'Approval'}
      data-approval-id={approval.id}
      data-status={approval.status}
    >
      {context}
      <h3>{approvalQuestion(approval)}</h3>
      <pre class="action" tabIndex={0} aria-label="Action">
        {approval.action}
      </pre>
      <p class="where">
        in <strong>{approval.cwd}</strong> · {approval.place === 'local' ? 'this computer' : approval.place}
      </p>
      {pending && onAnswer ? (
        <>
          <label for={noteId}>Note for the agent (optional)</label>
          <input
            id={noteId}
            type="text"
            value={note}
            maxLength={4000}
            onInput={(e) => setNote(e.currentTarget.value)}
            placeholder="e.g. use the test database instead"
          />
          <div class="buttons">
            <button type="button" class="primary" disabled={busy} onClick={() => void answer('allow-once')}>
              Allow once
            </button>
            <button type="button" disabled={busy} onClick={() => void answer('allow-session')}>
              Allow for session
            </button>
            <button type="button" class="danger" disabled={busy} onClick={() => void answer('deny')}>
              Deny
            </button>
          </div>
          {error && (
            <p class="error-text" role="alert">
              Not answered: {error.code === 'forbidden' ? 'this device may not answer approvals' : error.message}
            </p>
          )}
        </>
      ) : (
        <p class="answer" role="status">
          {pending
            ? 'Waiting for an answer (this device may not answer approvals)'
            : approvalOutcome(approval, deviceId)}
          {approval.note ? ` — “${approval.note}”` : ''}
        </p>
      )}
    </section>
  );
}
