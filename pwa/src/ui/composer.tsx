import type { ProtocolError, Result, SessionCommand } from '@tether/shared-protocol';
import { MAX_ATTACHMENTS_PER_MESSAGE } from '@tether/shared-protocol';
import { useState } from 'preact/hooks';
import { AttachPicker } from './attach-picker.js';
import type { OutboxFile } from '../data/records.js';
import { useCommandPalette } from './use-command-palette.js';

interface Props {
  /** A run is going: a message waits for its turn to end. */
  busy: boolean;
  disabledReason: string | undefined;
  /** Puts the message in the outbox: `kept` is false when the device's storage did not keep it. */
  onSend: (text: string, files: OutboxFile[]) => Promise<Result<{ kept: boolean }>>;
  /** The session's slash commands, listed as `/` is typed; without, no list. */
  commands?: (() => Promise<Result<SessionCommand[]>>) | undefined;
}

/**
 * The message box. Enter makes a new line; the button (or Ctrl/⌘+Enter on a keyboard) sends.
 * Sending puts the message in the outbox, which works offline too: the outbox shows its mark.
 */
export function Composer({ busy, disabledReason, onSend, commands }: Props) {
  const [text, setText] = useState('');
  const palette = useCommandPalette(text, setText, disabledReason === undefined ? commands : undefined);
  const [sending, setSending] = useState(false);
  const [hint, setHint] = useState('');
  const [error, setError] = useState<ProtocolError | null>(null);
  const [files, setFiles] = useState<OutboxFile[]>([]);
  const [preparing, setPreparing] = useState(0);

  /** Photos are scaled down here, on the phone; the code that does it loads on first use. */
  const pick = async (picked: File[]) => {
    if (picked.length === 0) return;
    setPreparing((n) => n + picked.length);
    const { prepareFile } = await import('../attach/prepare-file.js');
    const refused: string[] = [];
    for (const file of picked) {
      const prepared = await prepareFile(file);
      setPreparing((n) => n - 1);
      if (!prepared.ok) refused.push(prepared.reason);
      else
        setFiles((current) => {
          if (current.length < MAX_ATTACHMENTS_PER_MESSAGE) return [...current, prepared.file];
          refused.push(`at most ${MAX_ATTACHMENTS_PER_MESSAGE} attachments go with one message`);
          return current;
        });
    }
    setHint(refused.join('; '));
  };

  const send = async () => {
    const message = text.trim();
    if ((message === '' && files.length === 0) || sending || preparing > 0) return;
    setSending(true);
    setError(null);
    const result = await onSend(message, files);
    setSending(false);
    if (!result.ok) {
      setError(result.error);
      return;
    }
    setText('');
    setFiles([]);
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
      {/* Before the text, so Tab goes from the text straight to Send. */}
      <AttachPicker
        files={files}
        disabled={disabledReason !== undefined}
        onPick={(picked) => void pick(picked)}
        onRemove={(index) => setFiles((current) => current.filter((_, i) => i !== index))}
      />
      <div class="grow">
        {(hint || error) && (
          <p class={error ? 'hint error-text' : 'hint'} role="status">
            {error ? `Not sent: ${error.message}` : hint}
          </p>
        )}
        {palette.view}
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
          onPaste={(e) => {
            // A screenshot pasted on an iPad (or a file copied) is attached, not typed.
            const pasted = [...(e.clipboardData?.files ?? [])];
            if (pasted.length === 0) return;
            e.preventDefault();
            void pick(pasted);
          }}
          {...palette.inputProps}
          onKeyDown={(e) => {
            if (palette.onKeyDown(e)) return;
            if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
              e.preventDefault();
              void send();
            }
          }}
        />
      </div>
      <button
        type="submit"
        class="primary"
        disabled={
          sending || preparing > 0 || (text.trim() === '' && files.length === 0) || disabledReason !== undefined
        }
      >
        {busy ? 'Queue' : 'Send'}
      </button>
    </form>
  );
}
