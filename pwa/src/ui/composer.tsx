import type { ProtocolError, Result } from '@tether/shared-protocol';
import { useState } from 'preact/hooks';

interface Props {
  /** A run is going: a message waits for its turn to end. */
  busy: boolean;
  disabledReason: string | undefined;
  /** Puts the message in the outbox: `kept` is false when the device's storage did not keep it. */
  onSend: (text: string) => Promise<Result<{ kept: boolean }>>;
}

/**
 * The message box. Enter makes a new line; the button (or Ctrl/⌘+Enter on a keyboard) sends.
 * Sending puts the message in the outbox, which works offline too: the outbox shows its mark.
 */
export function Composer({ busy, disabledReason, onSend }: Props) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [hint, setHint] = useState('');
  const [error, setError] = useState<ProtocolError | null>(null);

  const send = async () => {
    const message = text.trim();
    if (message === '' || sending) return;
    setSending(true);
    setError(null);
    const result = await onSend(message);
    setSending(false);
    if (!result.ok) {
      setError(result.error);
      return;
    }
    setText('');
    setHint(result.value.kept ? '' : 'This device could not save it: it is lost if the app is closed before it goes.');
  };

  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <div class="grow">
        {(hint || error) && (
          <p class={error ? 'hint error-text' : 'hint'} role="status">
            {error ? `Not sent: ${error.message}` : hint}
          </p>
        )}
        <label class="visually-hidden" for="composer-text">
          Message
        </label>
        <textarea
          id="composer-text"
          rows={2}
          value={text}
          disabled={disabledReason !== undefined}
          placeholder={disabledReason ?? (busy ? 'Message (queued until the turn ends)' : 'Message')}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
              e.preventDefault();
              void send();
            }
          }}
        />
      </div>
      <button type="submit" class="primary" disabled={sending || text.trim() === '' || disabledReason !== undefined}>
        {busy ? 'Queue' : 'Send'}
      </button>
    </form>
  );
}
