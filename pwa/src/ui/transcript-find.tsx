import type { Dispatch, StateUpdater } from 'preact/hooks';

/** What is searched for, and which of its matches is shown. */
export interface FindState {
  query: string;
  at: number;
}

interface Props {
  find: FindState;
  setFind: Dispatch<StateUpdater<FindState>>;
  /** The indexes of the items that match, in order. */
  matches: readonly number[];
  /** Some events are not on this device yet: a count may grow. */
  hasGaps: boolean;
  onFind: (open: boolean) => void;
}

/** The transcript's find bar: the query, "n of m", previous and next, Done. */
export function FindBar({ find, setFind, matches, hasGaps, onFind }: Props) {
  const step = (by: number) =>
    setFind((f) => ({ ...f, at: matches.length === 0 ? 0 : (f.at + by + matches.length) % matches.length }));
  return (
    <form
      class="find-bar"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        step(1);
      }}
    >
      <input
        type="search"
        aria-label="Find in transcript"
        placeholder="Find in transcript"
        value={find.query}
        autoFocus
        onInput={(event) => setFind({ query: event.currentTarget.value, at: matches.length })}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onFind(false);
        }}
      />
      <span class="find-count" aria-live="polite">
        {find.query
          ? `${matches.length === 0 ? 0 : Math.min(find.at, matches.length - 1) + 1} of ${matches.length}`
          : ''}
        {hasGaps && find.query ? ' (older events still loading)' : ''}
      </span>
      <button type="button" onClick={() => step(-1)} aria-label="Previous match">
        ↑
      </button>
      <button type="submit" aria-label="Next match">
        ↓
      </button>
      <button type="button" onClick={() => onFind(false)}>
        Done
      </button>
    </form>
  );
}
