import type { DeviceClient, GitFile, GitPullRequest, GitStatus } from '@tether/shared-protocol';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { diffLines } from './diff-lines.js';
import { DiffPre } from './diff-pre.js';

/**
 * The session folder's repository (docs/git.md): its branch and how it stands against its
 * upstream, the changed files with a staged toggle and each one's diff, a commit message and
 * Commit, Push, and a pull request. Everything git prints is shown as text, never HTML; every
 * write is the host's real git, whose command line the transcript shows.
 */

interface Diff {
  path: string;
  staged: boolean;
  text: string;
  truncated: boolean;
}

type Problem = { code: string; message: string };

export function GitPanel({ client, sessionId, version }: { client: DeviceClient; sessionId: string; version: number }) {
  const [status, setStatus] = useState<GitStatus | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const [diff, setDiff] = useState<Diff | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [rejected, setRejected] = useState(false);
  const [pr, setPr] = useState<GitPullRequest | null>(null);

  const read = useCallback(async () => {
    const result = await client.call('git.status', { id: sessionId });
    if (result.ok) setStatus(result.value);
    else setProblem(result.error);
  }, [client, sessionId]);

  useEffect(() => {
    void read();
  }, [read, version]);

  /** Runs one write; its answer's status replaces the shown one. */
  const write = async (run: () => ReturnType<typeof client.call<'git.stage'>>, after?: () => void) => {
    setBusy(true);
    setProblem(null);
    const result = await run();
    setBusy(false);
    if (!result.ok) {
      setProblem(result.error);
      return false;
    }
    setStatus(result.value.status);
    setDone(result.value.command);
    setDiff(null);
    after?.();
    return true;
  };

  if (problem?.code === 'unknown-method') return null;
  if (!status) {
    return problem ? (
      <section class="git-panel" aria-label="Git">
        <p class="placeholder" data-git-problem={problem.code}>
          {problem.message}
        </p>
      </section>
    ) : null;
  }

  const staged = status.files.filter(isStaged);
  const push = async (forceWithLease: boolean) => {
    const ok = await write(() => client.call('git.push', { id: sessionId, forceWithLease }));
    setRejected(!ok);
  };
  const openPr = async () => {
    setBusy(true);
    const result = await client.call('git.pullRequest', { id: sessionId });
    setBusy(false);
    if (result.ok) setPr(result.value);
    else setProblem(result.error);
  };
  const showDiff = async (file: GitFile, inIndex: boolean) => {
    const result = await client.call('git.diff', { id: sessionId, path: file.path, staged: inIndex });
    if (!result.ok) return setProblem(result.error);
    setDiff({ path: file.path, staged: inIndex, text: result.value.diff, truncated: result.value.truncated });
  };

  return (
    <section class="git-panel" aria-label="Git" data-branch={status.branch ?? ''}>
      <h2>Git</h2>
      <p class="git-branch">
        <strong>{status.branch ?? 'HEAD detached'}</strong>
        {status.upstream ? (
          <span data-ahead={status.ahead} data-behind={status.behind}>
            {' '}
            → {status.upstream}: {status.ahead} ahead, {status.behind} behind
          </span>
        ) : (
          ' (no upstream yet: Push sets origin)'
        )}
      </p>
      {status.files.length === 0 && <p class="placeholder">Nothing changed.</p>}
      <ul class="git-files">
        {status.files.map((file) => {
          const inIndex = isStaged(file);
          const whole = inIndex && file.worktree === '.';
          return (
            <li key={file.path} data-path={file.path} data-staged={inIndex ? 'yes' : 'no'}>
              <label class="check">
                <input
                  type="checkbox"
                  checked={whole}
                  disabled={busy}
                  aria-label={`Stage ${file.path}`}
                  onChange={() =>
                    void write(() =>
                      client.call(whole ? 'git.unstage' : 'git.stage', { id: sessionId, paths: [file.path] }),
                    )
                  }
                />
              </label>{' '}
              <span class="git-letters">
                {file.index}
                {file.worktree}
              </span>{' '}
              <button type="button" class="link" onClick={() => void showDiff(file, inIndex && file.worktree === '.')}>
                {file.from ? `${file.from} → ${file.path}` : file.path}
              </button>
            </li>
          );
        })}
      </ul>
      {status.truncated && <p class="notice">More files changed than are listed.</p>}
      {diff && <DiffText diff={diff} onClose={() => setDiff(null)} />}
      <label for="git-message">Commit message</label>
      <textarea id="git-message" rows={3} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
      <div class="row-actions">
        <button
          type="button"
          class="primary"
          disabled={busy || staged.length === 0 || message.trim() === ''}
          onClick={() =>
            void write(
              () => client.call('git.commit', { id: sessionId, message: message.trim() }),
              () => setMessage(''),
            )
          }
        >
          Commit {staged.length > 0 ? `${staged.length} file${staged.length === 1 ? '' : 's'}` : ''}
        </button>
        <button type="button" disabled={busy || status.branch === undefined} onClick={() => void push(false)}>
          Push
        </button>
        <button type="button" disabled={busy || status.branch === undefined} onClick={() => void openPr()}>
          Open pull request
        </button>
      </div>
      {problem && (
        <p class="error-text" role="alert" data-git-error={problem.code}>
          {problem.message}
        </p>
      )}
      {rejected && (
        <div class="notice" data-force-push>
          <p>
            Push anyway replaces the remote branch with this one, if it still holds what this computer last fetched:
            commits on the remote branch that are not here are dropped from it.
          </p>
          <button type="button" class="danger" disabled={busy} onClick={() => void push(true)}>
            Push anyway (replace the remote branch)
          </button>
        </div>
      )}
      {done && !problem && (
        <p class="hint" data-git-done>
          Ran: <code>{done}</code>
        </p>
      )}
      {pr && <PullRequestLine pr={pr} />}
    </section>
  );
}

function isStaged(file: GitFile): boolean {
  return file.index !== '.' && file.index !== '?';
}

function PullRequestLine({ pr }: { pr: GitPullRequest }) {
  // Only a plain https address becomes a link; anything else is shown as text.
  const url = pr.url && /^https:\/\/[^\s"'<>]+$/.test(pr.url) ? pr.url : undefined;
  return (
    <p class="hint" data-pr={pr.via}>
      {pr.reason && <span>{pr.reason}. </span>}
      {url ? (
        <a href={url} target="_blank" rel="noopener noreferrer">
          {pr.via === 'gh' ? 'The pull request' : 'Open a pull request'}
        </a>
      ) : (
        pr.url
      )}
    </p>
  );
}

function DiffText({ diff, onClose }: { diff: Diff; onClose: () => void }) {
  const { lines, more } = diffLines(diff.text);
  return (
    <div class="file-diff" data-diff-path={diff.path}>
      <p>
        <span class="change-path">{diff.path}</span> ({diff.staged ? 'staged' : 'not staged'}){' '}
        <button type="button" class="link" onClick={onClose}>
          Close
        </button>
      </p>
      <DiffPre lines={lines} />
      {(more > 0 || diff.truncated) && <p class="notice">{more > 0 ? `${more} more lines` : 'The diff was cut.'}</p>}
    </div>
  );
}
