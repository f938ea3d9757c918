import type { DeviceClient, SessionEventOf } from '@tether/shared-protocol';
import { decodeEvent } from '@tether/shared-protocol';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { diffLines } from './diff-lines.js';
import { DiffPre } from './diff-pre.js';

type FileChanged = SessionEventOf<'file.changed'>;

/** Changes read per request: a screenful of files, each with its diff. */
export const CHANGES_PAGE = 50;

interface State {
  changes: FileChanged[];
  more: boolean;
  loading: boolean;
  error: string | null;
}

/**
 * What a session changed: every file it wrote or edited, newest first, each with its unified diff
 * (coloured by line, wrapped for a phone), read from the host's event log with `sessions.changes`.
 * Read again when the session's log grows (`version`).
 */
export function ChangesView({
  client,
  sessionId,
  version,
}: {
  client: DeviceClient;
  sessionId: string;
  version: number;
}) {
  const [state, setState] = useState<State>({ changes: [], more: false, loading: true, error: null });

  const read = useCallback(
    async (before?: number) => {
      setState((s) => ({ ...s, loading: true }));
      const result = await client.call('sessions.changes', {
        id: sessionId,
        limit: CHANGES_PAGE,
        ...(before !== undefined ? { before } : {}),
      });
      if (!result.ok) {
        setState((s) => ({ ...s, loading: false, error: result.error.message }));
        return;
      }
      const page: FileChanged[] = [];
      for (const raw of result.value.events) {
        const decoded = decodeEvent(raw);
        if (decoded.kind === 'event' && decoded.event.type === 'file.changed') page.push(decoded.event);
      }
      setState((s) => {
        const kept = before === undefined ? [] : s.changes;
        const seen = new Set(kept.map((c) => c.seq));
        return {
          changes: [...kept, ...page.filter((c) => !seen.has(c.seq))],
          more: result.value.more,
          loading: false,
          error: null,
        };
      });
    },
    [client, sessionId],
  );

  useEffect(() => {
    void read();
  }, [read, version]);

  return (
    <section class="changes" aria-label="Changes" data-changes={state.changes.length}>
      <h2>Changes</h2>
      {state.error && (
        <p class="error-text" role="alert">
          Changes could not be read: {state.error}
        </p>
      )}
      {!state.loading && state.changes.length === 0 && !state.error && <p class="placeholder">No files changed yet.</p>}
      <ul class="change-list">
        {state.changes.map((change) => (
          <li key={change.seq}>
            <FileDiff change={change} />
          </li>
        ))}
      </ul>
      {state.more && (
        <button type="button" disabled={state.loading} onClick={() => void read(state.changes.at(-1)?.seq)}>
          Older changes
        </button>
      )}
    </section>
  );
}

function FileDiff({ change }: { change: FileChanged }) {
  const { lines, more } = diffLines(change.diff);
  return (
    <details class="file-diff" open data-path={change.path} data-change={change.change}>
      <summary>
        <span class={`change-kind ${change.change}`}>{change.change === 'created' ? 'new' : 'edited'}</span>{' '}
        <span class="change-path">{change.path}</span>
      </summary>
      <DiffPre lines={lines} />
      {(more > 0 || change.truncated) && (
        <p class="notice">{more > 0 ? `${more} more lines` : 'The diff was cut: the whole change is in the file.'}</p>
      )}
    </details>
  );
}
