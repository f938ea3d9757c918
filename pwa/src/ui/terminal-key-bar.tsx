import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { BarKey, KeyBarState, Modifier } from '../terminal/key-bar.js';
import { BAR_SYMBOLS, keySequence } from '../terminal/key-bar.js';
import { LockIcon } from './icons.js';

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

/** Pixels of scroll left before an end counts as reached (sub-pixel scroll positions). */
const END_SLACK_PX = 1;

/**
 * The keys a phone keyboard lacks, above it. Pressing one never takes the focus from the
 * terminal, so the keyboard stays up. Ctrl and Alt: one tap for the next key, two to lock.
 * Wider than the screen, it scrolls sideways, and a fade with an arrow shows on each side that
 * has more keys (a phone hides scroll bars).
 */
export function TerminalKeyBar({ keys, send, applicationCursor, changed, paste, copy }: Props) {
  const bar = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState({ start: false, end: false });
  useLayoutEffect(() => {
    const el = bar.current;
    if (!el) return undefined;
    const update = () => {
      const max = el.scrollWidth - el.clientWidth;
      const start = el.scrollLeft > END_SLACK_PX;
      const end = el.scrollLeft < max - END_SLACK_PX;
      setMore((now) => (now.start === start && now.end === end ? now : { start, end }));
    };
    update();
    // The bar's width changes with rotation and the pane; the keys' with a lock mark.
    const resized = new ResizeObserver(update);
    resized.observe(el);
    for (const child of el.children) resized.observe(child);
    el.addEventListener('scroll', update, { passive: true });
    return () => {
      resized.disconnect();
      el.removeEventListener('scroll', update);
    };
  }, []);
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
        {state === 'locked' && (
          <>
            {' '}
            <LockIcon />
            <span class="visually-hidden">locked</span>
          </>
        )}
      </button>
    );
  };
  return (
    <div class="key-bar-wrap" data-more-start={more.start} data-more-end={more.end}>
      {/* preventDefault on pointer down keeps the focus (and the phone's keyboard) on the terminal. */}
      <div
        class="key-bar"
        ref={bar}
        role="toolbar"
        aria-label="Terminal keys"
        onPointerDown={(e) => e.preventDefault()}
      >
        {KEYS.map((k) => (
          <button type="button" class="key" key={k.key} data-key={k.key} aria-label={k.name} onClick={() => key(k.key)}>
            {k.label}
          </button>
        ))}
        {modifier('ctrl', 'Ctrl')}
        {ARROWS.map((k) => (
          <button type="button" class="key" key={k.key} data-key={k.key} aria-label={k.name} onClick={() => key(k.key)}>
            {k.label}
          </button>
        ))}
        {modifier('alt', 'Alt')}
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
      <span class="key-bar-more" data-side="start" aria-hidden="true">
        ‹
      </span>
      <span class="key-bar-more" data-side="end" aria-hidden="true">
        ›
      </span>
    </div>
  );
}
