import type { SessionCommand } from '@tether/shared-protocol';
import { VisibleText } from './visible-text.js';

const SOURCE: Record<SessionCommand['source'], string> = { agent: 'agent', tether: 'Tether', skill: 'skill' };

interface Props {
  id: string;
  listed: 'loading' | { failed: string } | { matches: SessionCommand[] };
  typed: string;
  active: number;
  onPick: (command: SessionCommand) => void;
}

/**
 * The commands that match what is typed after `/`, each with what it does: an agent's names and
 * descriptions are its own text, shown with their hidden characters as marks. Every row is a
 * target a thumb can hit; the highlighted one is what Enter takes.
 */
export function CommandList({ id, listed, typed, active, onPick }: Props) {
  if (listed === 'loading') {
    return (
      <p class="command-list-note" role="status">
        Looking up this session's commands…
      </p>
    );
  }
  if ('failed' in listed) {
    return (
      <p class="command-list-note error-text" role="status">
        The commands could not be listed: {listed.failed}
      </p>
    );
  }
  if (listed.matches.length === 0) {
    return (
      <p class="command-list-note" role="status">
        No command starts with {typed}. Start with // to send text that begins with /.
      </p>
    );
  }
  return (
    <ul class="command-list" id={id} role="listbox" aria-label="Commands">
      {listed.matches.map((command, i) => (
        <li
          key={command.name}
          id={`${id}-${i}`}
          role="option"
          aria-selected={i === active}
          class={i === active ? 'active' : undefined}
          data-command={command.name}
          // Keeps the focus (and the on-screen keyboard) in the message box.
          onMouseDown={(event) => event.preventDefault()}
          onClick={() => onPick(command)}
        >
          <span class="command-name">
            /<VisibleText text={command.name} />
            {command.hint && (
              <span class="command-hint">
                {' '}
                <VisibleText text={command.hint} />
              </span>
            )}
          </span>
          <span class="command-source">{SOURCE[command.source]}</span>
          <span class="command-description">
            <VisibleText text={command.description} />
          </span>
        </li>
      ))}
    </ul>
  );
}
