import type { BarKey, KeyBarState, Modifier } from '../terminal/key-bar.js';
import { BAR_SYMBOLS, keySequence } from '../terminal/key-bar.js';

interface Props {
  keys: KeyBarState;
  /** Sends a sequence to the terminal (modifiers already applied). */
  send: (data: string) => void;
  applicationCursor: () => boolean;
  /** The modifier state changed: show it. */
  changed: () => void;
  paste: () => void;
  copy: () => void;
}

const KEYS: { key: BarKey; label: string; name: string }[] = [
  { key: 'esc', label: 'Esc', name: 'Escape' },
  { key: 'tab', label: 'Tab', name: 'Tab' },
];
const ARROWS: { key: BarKey; label: string; name: string }[] = [
  { key: 'left', label: '←', name: 'Left' },
  { key: 'up', label: '↑', name: 'Up' },
  { key: 'down', label: '↓', name: 'Down' },
  { key: 'right', label: '→', name: 'Right' },
];

/**
 * The keys a phone keyboard lacks, above it. Pressing one never takes the focus from the
 * terminal, so the keyboard stays up. Ctrl and Alt: one tap for the next key, two to lock.
 */
export function TerminalKeyBar({ keys, send, applicationCursor, changed, paste, copy }: Props) {
  const key = (k: BarKey) => {
    send(keys.applyKey(keySequence(k, applicationCursor())));
    changed();
  };
  const modifier = (m: Modifier, label: string) => {
    const state = keys.state(m);
    return (
      <button
        type="button"
        class={`key modifier ${state}`}
        aria-pressed={state !== 'off'}
        data-key={m}
        data-state={state}
        onClick={() => {
          keys.tap(m);
          changed();
        }}
      >
        {label}
        {state === 'locked' ? ' 🔒' : ''}
      </button>
    );
  };
  return (
    // preventDefault on pointer down keeps the focus (and the phone's keyboard) on the terminal.
    <div class="key-bar" role="toolbar" aria-label="Terminal keys" onPointerDown={(e) => e.preventDefault()}>
      {KEYS.map((k) => (
        <button type="button" class="key" key={k.key} data-key={k.key} aria-label={k.name} onClick={() => key(k.key)}>
          {k.label}
        </button>
      ))}
      {modifier('ctrl', 'Ctrl')}
      {modifier('alt', 'Alt')}
      {ARROWS.map((k) => (
        <button type="button" class="key" key={k.key} data-key={k.key} aria-label={k.name} onClick={() => key(k.key)}>
          {k.label}
        </button>
      ))}
      {BAR_SYMBOLS.map((symbol) => (
        <button
          type="button"
          class="key"
          key={symbol}
          data-key={symbol}
          onClick={() => {
            send(keys.applyKey(symbol));
            changed();
          }}
        >
          {symbol}
        </button>
      ))}
      <button type="button" class="key" data-key="paste" onClick={paste}>
        Paste
      </button>
      <button type="button" class="key" data-key="copy" onClick={copy}>
        Copy
      </button>
    </div>
  );
}
