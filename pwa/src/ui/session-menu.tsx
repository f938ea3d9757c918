import type { NotifyLevel, ProtocolError, Result, SessionSummary } from '@tether/shared-protocol';
import { useState } from 'preact/hooks';
import { MoreIcon } from './icons.js';

const CHOICES: { level: NotifyLevel; label: string }[] = [
  { level: 'needs', label: 'When it needs me' },
  { level: 'done', label: 'Also when a run finishes' },
  { level: 'off', label: 'Never' },
];

interface Props {
  session: SessionSummary;
  onChange: (level: NotifyLevel) => Promise<Result<unknown>>;
  /** Opens the share screen (a read-only link to this session); absent where it cannot be shared. */
  onShare?: (() => void) | undefined;
}

/**
 * The session's menu: when this session's devices are notified (kept on the computer, so every
 * device and `tether sessions notify` see the same choice). Nothing is sent for a session a
 * device has open in front, whatever the choice.
 */
export function SessionMenu({ session, onChange, onShare }: Props) {
  const [error, setError] = useState<ProtocolError | null>(null);
  const [saving, setSaving] = useState(false);
  const current = session.notify ?? 'needs';
  return (
    <details class="session-menu">
      <summary aria-label="Session menu" title="Session menu">
        <MoreIcon />
      </summary>
      <div class="session-menu-body">
        <label for="session-notify">Notify me</label>
        <select
          id="session-notify"
          value={current}
          disabled={saving}
          onChange={(e) => {
            const level = e.currentTarget.value as NotifyLevel;
            setSaving(true);
            setError(null);
            void onChange(level).then((result) => {
              setSaving(false);
              if (!result.ok) setError(result.error);
            });
          }}
        >
          {CHOICES.map((c) => (
            <option key={c.level} value={c.level}>
              {c.label}
            </option>
          ))}
        </select>
        {error && (
          <p class="error-text" role="alert">
            Not changed: {error.message}
          </p>
        )}
        {onShare && (
          <button type="button" onClick={onShare}>
            Share…
          </button>
        )}
      </div>
    </details>
  );
}
