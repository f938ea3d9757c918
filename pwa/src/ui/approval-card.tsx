import type { Approval, Decision, ProtocolError, Result } from '@tether/shared-protocol';
import { Fragment, createContext } from 'preact';
import { useContext, useId, useRef, useState } from 'preact/hooks';
import { actionView, approvalAnswers, approvalOutcome, approvalQuestion, linesBadge } from './approval-text.js';
import { Segments } from './visible-text.js';

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
 * Whether a note given with an answer reaches the agent: only from a device with the `chat` scope
 * (the host keeps a note from any other back from the agent), so only such a device offers one.
 */
export const NotesReachAgent = createContext(false);

/**
 * An approval: the complete action (wrapped, never cut; a long one scrolls inside the card), the
 * folder and place it runs in, and the answers (a fourth, "always", where the agent offers an answer
 * of its own that outlives the session). Once answered anywhere, says by whom. A
 * multi-line action carries a line count and numbered lines; hidden characters (controls, bidi,
 * zero-width) are shown as marks, as the terminal shows them.
 */
export function ApprovalCard({ approval, deviceId, onAnswer, context }: Props) {
  const [note, setNote] = useState('');
  const notes = useContext(NotesReachAgent);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ProtocolError | null>(null);
  const noteId = useId();
  const pending = approval.status === 'pending';
  const view = actionView(approval.action);
  const badge = linesBadge(view);
  // A plan (the own loop's plan mode) is accepted or sent back with what to change: never for the session.
  const plan = approval.kind === 'plan';

  const answer = async (decision: Decision) => {
    if (!onAnswer) return;
    setBusy(true);
    setError(null);
    const result = await onAnswer(decision, note.trim());
    setBusy(false);
    if (!result.ok && result.error.code !== 'already-resolved') setError(result.error);
  };

  // Keyboard (a tablet's): with focus in the card, Alt+A moves to Allow once, which Enter then
  // presses. The card is the confirmation, not a dialog: browsers cut a long dialog text short
  // (Chromium keeps 32 rows of 132 columns on Linux, 24 of 80 on Android; Chrome on iOS 150
  // characters) and draw its hidden characters as nothing, and an action is never shown shortened.
  const allowButton = useRef<HTMLButtonElement>(null);
  const [shortcutUsed, setShortcutUsed] = useState(false);
  const onKeyDown = (event: KeyboardEvent) => {
    if (!pending || !onAnswer || busy || !event.altKey || event.code !== 'KeyA') return;
    event.preventDefault();
    setShortcutUsed(true);
    allowButton.current?.focus();
  };

  return (
    <section
      class={`approval${pending ? '' : ' resolved'}`}
      aria-label={pending ? 'Approval needed' : 'Approval'}
      data-approval-id={approval.id}
      data-status={approval.status}
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      {context}
      <h3>
        {approvalQuestion(approval)}
        {badge && <span class="lines-badge">{badge}</span>}
      </h3>
      <pre class={`action${badge ? ' multi' : ''}`} tabIndex={0} aria-label="Action">
        {view.lines.map((line, i) => (
          <Fragment key={i}>
            {i > 0 && '\n'}
            <span class="line">
              <Segments segments={line} />
            </span>
          </Fragment>
        ))}
      </pre>
      {view.hidden > 0 && (
        <p class="hidden-note" role="note">
          {view.hidden === 1 ? '1 hidden character is' : `${view.hidden} hidden characters are`} shown as ⟨…⟩ marks:
          they could make the text look different from what runs.
        </p>
      )}
      <p class="where">
        in <strong>{approval.cwd}</strong> · {approval.place === 'local' ? 'this computer' : approval.place}
      </p>
      {pending && onAnswer ? (
        <>
          {notes && approval.kind !== 'trust' && (
            <>
              <label for={noteId}>{plan ? 'What to change (optional)' : 'Note for the agent (optional)'}</label>
              <input
                id={noteId}
                type="text"
                value={note}
                maxLength={4000}
                onInput={(e) => setNote(e.currentTarget.value)}
                placeholder="e.g. use the test database instead"
              />
            </>
          )}
          <div class="buttons">
            {approvalAnswers(approval).map((choice) => (
              <button
                key={choice.decision}
                type="button"
                {...(choice.style ? { class: choice.style } : {})}
                {...(choice.title !== undefined ? { title: choice.title } : {})}
                ref={choice.style === 'primary' ? allowButton : undefined}
                disabled={busy}
                onClick={() => void answer(choice.decision)}
              >
                {choice.label}
              </button>
            ))}
          </div>
          {shortcutUsed && (
            <p class="shortcut-note" role="status">
              Read the whole action above: Enter{' '}
              {approval.kind === 'trust' ? 'trusts it for this session' : 'allows it once'}.
            </p>
          )}
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
