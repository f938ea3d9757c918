import type { Result, SessionCommand } from '@tether/shared-protocol';
import type { ComponentChildren } from 'preact';
import { createElement } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { CommandList } from './command-list.js';
import { matchingCommands, typingCommand } from './steer-text.js';

/** The id of the list, for the message box's `aria-controls` and `aria-activedescendant`. */
export const COMMAND_LIST_ID = 'composer-commands';

type Listed = { state: 'loading' } | { state: 'ready'; commands: SessionCommand[] } | { state: 'failed'; why: string };

/**
 * The slash-command list of the message box: `/` typed first fetches the session's commands
 * (`sessions.controls`: an agent's own, or the own loop's and its skills), and the list follows
 * what is typed. Keys: ↓/↑ move, Enter or Tab puts the command in the box, Escape closes the list
 * (until something more is typed). A tap on a command does the same as Enter.
 */
export function useCommandPalette(
  text: string,
  setText: (text: string) => void,
  load: (() => Promise<Result<SessionCommand[]>>) | undefined,
): { view: ComponentChildren; onKeyDown: (event: KeyboardEvent) => boolean; inputProps: Record<string, string> } {
  const [listed, setListed] = useState<Listed | undefined>();
  // The highlighted command and Escape hold until the text changes: anything typed starts over.
  // (Counted here as the text is drawn, not reset in an effect: an effect runs after the next paint,
  // and a key pressed before it would be undone.)
  const typed = useRef({ text, count: 0 });
  if (typed.current.text !== text) typed.current = { text, count: typed.current.count + 1 };
  const [choice, setChoice] = useState({ at: 0, active: 0, closed: false });
  const active = choice.at === typed.current.count ? choice.active : 0;
  const closed = choice.at === typed.current.count && choice.closed;
  const slash = load !== undefined && text.startsWith('/') && !text.startsWith('//');

  // Fetched each time the list opens: what an agent offers may change while the session runs.
  useEffect(() => {
    if (!slash) {
      setListed(undefined);
      return undefined;
    }
    if (listed) return undefined;
    let live = true;
    setListed({ state: 'loading' });
    void load().then((result) => {
      if (!live) return;
      setListed(
        result.ok ? { state: 'ready', commands: result.value } : { state: 'failed', why: result.error.message },
      );
    });
    return () => {
      live = false;
    };
  }, [slash]);

  const all = listed?.state === 'ready' ? listed.commands : [];
  const open = slash && !closed && typingCommand(text, all);
  const matches = open ? matchingCommands(all, text) : [];
  const index = Math.min(active, Math.max(0, matches.length - 1));

  // The command and a space: its arguments are typed next, and the list goes.
  const pick = (command: SessionCommand) => setText(`/${command.name} `);
  const onKeyDown = (event: KeyboardEvent): boolean => {
    if (!open) return false;
    if (event.key === 'Escape') {
      setChoice({ at: typed.current.count, active: index, closed: true });
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (matches.length === 0) return false;
      const step = event.key === 'ArrowDown' ? 1 : matches.length - 1;
      setChoice({ at: typed.current.count, active: (index + step) % matches.length, closed: false });
    } else if ((event.key === 'Enter' && !event.ctrlKey && !event.metaKey) || event.key === 'Tab') {
      const chosen = matches[index];
      if (!chosen || event.shiftKey) return false;
      pick(chosen);
    } else return false;
    event.preventDefault();
    return true;
  };
  const view = open
    ? createElement(CommandList, {
        id: COMMAND_LIST_ID,
        listed:
          listed?.state === 'failed' ? { failed: listed.why } : listed?.state === 'ready' ? { matches } : 'loading',
        typed: text,
        active: index,
        onPick: pick,
      })
    : null;
  const inputProps: Record<string, string> = open
    ? {
        role: 'combobox',
        'aria-expanded': 'true',
        'aria-controls': COMMAND_LIST_ID,
        'aria-autocomplete': 'list',
        ...(matches[index] ? { 'aria-activedescendant': `${COMMAND_LIST_ID}-${index}` } : {}),
      }
    : {};
  return { view, onKeyDown, inputProps };
}
