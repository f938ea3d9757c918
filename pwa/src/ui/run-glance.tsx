import type { KeepAwakeStatus, Result, SessionSummary } from '@tether/shared-protocol';
import { MAX_MODEL_CALLS_LIMIT } from '@tether/shared-protocol';
import { useState } from 'preact/hooks';
import { useNow } from './use-now.js';
import { awakeText, maySleep } from './awake-text.js';
import { VisibleText } from './visible-text.js';

/** "1 h 05 min", "3 min 20 s", "12 s": elapsed time for a glance. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** "12.3 k" tokens. */
export function formatCount(n: number): string {
  return n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(1)} k` : `${(n / 1_000_000).toFixed(1)} M`;
}

type Activity = NonNullable<SessionSummary['activity']>;

/**
 * Tokens over the session: unknown when its back-end never said (an ACP agent reports none), never
 * "0 in · 0 out"; with some runs unreported, the total says it is short of them.
 */
export function tokensLine(activity: Activity): string {
  const unreported = activity.unreportedRuns ?? 0;
  const counted = activity.inputTokens > 0 || activity.outputTokens > 0;
  if (unreported > 0 && !counted) return 'not reported';
  const total = `${formatCount(activity.inputTokens)} in · ${formatCount(activity.outputTokens)} out`;
  return unreported > 0 ? `${total} (${unreported} ${unreported === 1 ? 'run' : 'runs'} not reported)` : total;
}

/** Model calls against the limit; unknown for a back-end that does not report them. */
export function modelCallsLine(activity: Activity): string {
  if ((activity.unreportedRuns ?? 0) > 0 && activity.modelCalls === 0) return 'not reported';
  return `${activity.modelCalls} / ${activity.maxModelCalls}`;
}

/**
 * The instruction files the last run took in, as names relative to the session's folder where
 * they lie inside it ("AGENTS.md", "../AGENTS.md" for a parent, else the whole path), each
 * marked when it was cut or left out.
 */
export function instructionsLine(session: SessionSummary): string | undefined {
  const files = session.activity?.instructions;
  if (files === undefined) return undefined;
  if (files.length === 0) return 'none';
  const cwd = session.cwd.endsWith('/') ? session.cwd : `${session.cwd}/`;
  const name = (path: string) => {
    if (path.startsWith(cwd)) return path.slice(cwd.length);
    // A parent of the session folder: as many `../` as folders between them.
    const slash = path.lastIndexOf('/');
    const folder = `${path.slice(0, slash)}/`;
    if (!cwd.startsWith(folder)) return path;
    const depth = cwd.slice(folder.length).split('/').filter(Boolean).length;
    return `${'../'.repeat(depth)}${path.slice(slash + 1)}`;
  };
  const mark = { read: '', cut: ' (cut)', 'left-out': ' (left out)' } as const;
  return files.map((f) => `${name(f.path)}${mark[f.status]}`).join(' · ');
}

/** How full the model's context is: "45% (12.3 k of 200.0 k)", and how often it was compacted. */
export function contextLine(activity: Activity): string | undefined {
  const context = activity.context;
  if (!context || context.window === 0) return undefined;
  const percent = Math.min(100, Math.round((context.tokens / context.window) * 100));
  const compacted =
    context.compactions === 0 ? '' : ` · compacted ${context.compactions} time${context.compactions === 1 ? '' : 's'}`;
  return `${percent}% (${formatCount(context.tokens)} of ${formatCount(context.window)})${compacted}`;
}

/** The session's one-line "now" for lists: what the run does, or that it waits for the person. */
export function nowLine(session: SessionSummary): string {
  const activity = session.activity;
  if (!activity) return '';
  if (activity.paused) return `Stopped after ${activity.modelCalls} model calls: waiting for you to go on`;
  if (activity.budgetReached && session.status !== 'running') return 'Budget reached: waiting for you';
  if (session.status === 'waiting') return `Waiting for approval${activity.now ? ` · ${activity.now}` : ''}`;
  return activity.now;
}

/**
 * A run at a glance, at the top of a session: state, elapsed time, what it does now, model calls
 * against the limit, tool calls, tokens and cost (where reported), waiting approvals; and, when
 * the run stopped at its model-call limit, a one-tap "Go on".
 */
export function RunGlance({
  session,
  onGoOn,
  onSetLimit,
  awake,
}: {
  session: SessionSummary;
  /** Whether the computer is kept awake (from `host.info` and `awake.status`); absent from older hosts. */
  awake?: KeepAwakeStatus | undefined;
  onGoOn: (() => Promise<unknown>) | undefined;
  /** Sets the session's own model-call limit (null: back to the computer's). */
  onSetLimit?: ((limit: number | null) => Promise<Result<unknown>>) | undefined;
}) {
  const activity = session.activity;
  const running = session.status === 'running' || session.status === 'waiting';
  const now = useNow(running ? 1000 : 60_000);
  const [going, setGoing] = useState(false);
  const [open, setOpen] = useState(false);
  if (!activity) return null;
  const elapsed = activity.runStartedAt === null ? undefined : (activity.runEndedAt ?? now) - activity.runStartedAt;
  return (
    <section
      class="run-glance"
      aria-label="Run at a glance"
      data-paused={activity.paused ? 'true' : 'false'}
      data-open={open ? 'true' : 'false'}
    >
      <RunLine
        session={session}
        elapsed={elapsed}
        running={running}
        open={open}
        onToggle={() => setOpen(!open)}
        maySleep={awake !== undefined && maySleep(awake)}
      />
      <dl id="run-figures">
        {elapsed !== undefined && (
          <div>
            <dt>{running ? 'Running for' : 'Last run'}</dt>
            <dd>{formatElapsed(elapsed)}</dd>
          </div>
        )}
        <div>
          <dt>Model calls</dt>
          <dd>{modelCallsLine(activity)}</dd>
        </div>
        <div>
          <dt>Tool calls</dt>
          <dd>{activity.toolCalls}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>{tokensLine(activity)}</dd>
        </div>
        {contextLine(activity) !== undefined && (
          <div class="run-context">
            <dt>Context</dt>
            <dd>{contextLine(activity)}</dd>
          </div>
        )}
        {instructionsLine(session) !== undefined && (
          <div class="run-instructions">
            <dt>Instructions</dt>
            <dd title={activity.instructions?.map((f) => f.path).join('\n')}>{instructionsLine(session)}</dd>
          </div>
        )}
        {activity.costUsd !== undefined && (
          <div>
            <dt>Cost</dt>
            <dd>${activity.costUsd.toFixed(2)}</dd>
          </div>
        )}
        {session.pendingApprovals > 0 && (
          <div>
            <dt>Approvals</dt>
            <dd>{session.pendingApprovals} waiting</dd>
          </div>
        )}
        {awake && <AwakeFigure awake={awake} />}
      </dl>
      {activity.now && running && <p class="run-now">{activity.now}</p>}
      {onSetLimit && <LimitForm limit={activity.maxModelCalls} own={activity.ownLimit} onSet={onSetLimit} />}
      {activity.paused && !running && (
        <p class="run-paused" role="status">
          Stopped after {activity.modelCalls} model calls (the limit for one run). It waits for you.{' '}
          {onGoOn && (
            <button
              type="button"
              class="primary"
              disabled={going}
              onClick={() => {
                setGoing(true);
                void onGoOn().finally(() => setGoing(false));
              }}
            >
              Go on
            </button>
          )}
        </p>
      )}
    </section>
  );
}

/** The session's own model-call limit per run: a number, or back to the computer's default. */
function LimitForm({
  limit,
  own,
  onSet,
}: {
  limit: number;
  own: boolean;
  onSet: (limit: number | null) => Promise<Result<unknown>>;
}) {
  const [value, setValue] = useState(String(limit));
  const [error, setError] = useState('');
  const submit = async (next: number | null) => {
    const result = await onSet(next);
    setError(result.ok ? '' : result.error.message);
  };
  return (
    <details class="run-limit">
      <summary>Model calls per run: {own ? `${limit} (this session)` : `${limit} (the computer's)`}</summary>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const n = Number(value);
          if (!Number.isInteger(n) || n < 1 || n > MAX_MODEL_CALLS_LIMIT) {
            setError(`A whole number from 1 to ${MAX_MODEL_CALLS_LIMIT}`);
            return;
          }
          void submit(n);
        }}
      >
        <label>
          Limit{' '}
          <input
            type="number"
            min={1}
            max={MAX_MODEL_CALLS_LIMIT}
            value={value}
            onInput={(event) => setValue(event.currentTarget.value)}
          />
        </label>{' '}
        <button type="submit">Set</button>{' '}
        {own && (
          <button type="button" onClick={() => void submit(null)}>
            Use the computer's
          </button>
        )}
        {error && (
          <span class="error-text" role="alert">
            {' '}
            {error}
          </span>
        )}
      </form>
    </details>
  );
}

/**
 * The figures in one line, for a phone: "Running 12 s · 3 / 100 model calls · 2 tool calls ·
 * 1.2 k in · 340 out · 1 waiting".
 */
export function runLine(session: SessionSummary, elapsed: number | undefined, running: boolean): string {
  const activity = session.activity;
  if (!activity) return '';
  const calls = modelCallsLine(activity);
  const tokens = tokensLine(activity);
  return [
    elapsed === undefined ? '' : `${running ? 'Running' : 'Last run'} ${formatElapsed(elapsed)}`,
    calls === 'not reported' ? '' : `${calls} model calls`,
    `${activity.toolCalls} tool ${activity.toolCalls === 1 ? 'call' : 'calls'}`,
    tokens === 'not reported' ? 'tokens not reported' : tokens,
    session.pendingApprovals > 0 ? `${session.pendingApprovals} waiting` : '',
  ]
    .filter((part) => part !== '')
    .join(' · ');
}

/**
 * The folded figures' line: on a phone the run panel is this one line until tapped, so that an
 * approval and the transcript keep the screen; from 768 px wide it is not drawn (the figures show).
 */
function RunLine(props: {
  session: SessionSummary;
  elapsed: number | undefined;
  running: boolean;
  open: boolean;
  onToggle: () => void;
  maySleep: boolean;
}) {
  return (
    <button
      type="button"
      class="run-line"
      aria-expanded={props.open}
      aria-controls="run-figures"
      onClick={props.onToggle}
    >
      <span class="run-line-text">
        {/* First, where a long line's ellipsis cannot cut it. */}
        {props.maySleep && <span class="warn-text">Computer may sleep · </span>}
        {runLine(props.session, props.elapsed, props.running)}
      </span>
    </button>
  );
}

/** Whether the computer is kept awake, as `tether status` says it; why not, when it is not. */
function AwakeFigure({ awake }: { awake: KeepAwakeStatus }) {
  const { text, why } = awakeText(awake);
  return (
    <div class="run-awake" data-keep-awake={awake.state}>
      <dt>Computer</dt>
      <dd class={why === undefined ? '' : 'warn-text'}>
        {text}
        {why !== undefined && (
          <>
            : <VisibleText text={why} />
          </>
        )}
      </dd>
    </div>
  );
}
