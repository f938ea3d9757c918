import type { DeviceClient, Result, SessionBudget, SessionControls, SessionSummary } from '@tether/shared-protocol';
import { MAX_BUDGET_TOKENS, MAX_BUDGET_USD } from '@tether/shared-protocol';
import { useEffect, useState } from 'preact/hooks';
import type { SteerPanelName } from './steer-text.js';
import { dollars, runTokens, spendLine } from './steer-text.js';
import { VisibleText } from './visible-text.js';

interface Props {
  which: SteerPanelName;
  session: SessionSummary;
  client: DeviceClient;
  canChat: boolean;
  onDone: () => void;
}

/** The picker a steer chip opens: the session's modes, its models, or its budget. */
export function SteerPanel(props: Props) {
  return props.which === 'budget' ? <BudgetPanel {...props} /> : <ChoicePanel {...props} what={props.which} />;
}

/** Modes or models, as `sessions.controls` lists them, the current one marked; a tap switches. */
function ChoicePanel({ what, session, client, onDone }: Props & { what: 'mode' | 'model' }) {
  const [controls, setControls] = useState<Result<SessionControls> | undefined>();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    void client.call('sessions.controls', { id: session.id }).then((result) => live && setControls(result));
    return () => {
      live = false;
    };
  }, [client, session.id]);
  if (!controls) return <p role="status">Loading…</p>;
  if (!controls.ok)
    return (
      <p class="error-text" role="alert">
        Not listed: {controls.error.message}
      </p>
    );
  const list = what === 'mode' ? controls.value.modes : controls.value.models;
  const current = what === 'mode' ? (controls.value.mode ?? session.mode?.id) : controls.value.model;
  const choose = async (id: string) => {
    setBusy(true);
    setError('');
    const result =
      what === 'mode'
        ? await client.call('sessions.setMode', { id: session.id, mode: id })
        : await client.call('sessions.setModel', { id: session.id, model: id });
    setBusy(false);
    if (result.ok) onDone();
    else setError(result.error.message);
  };
  return (
    <fieldset class="steer-choices" data-steer-panel={what} disabled={busy}>
      <legend>{what === 'mode' ? 'Mode' : 'Model'}</legend>
      {controls.value.note && (
        <p class="hint">
          <VisibleText text={controls.value.note} />
        </p>
      )}
      {list.length === 0 && <p class="hint">This session has no {what}s to choose.</p>}
      {list.map((choice) => (
        <button
          key={choice.id}
          type="button"
          class={choice.id === current ? 'steer-choice current' : 'steer-choice'}
          aria-pressed={choice.id === current}
          data-choice={choice.id}
          onClick={() => void choose(choice.id)}
        >
          <strong>
            <VisibleText text={choice.name} />
          </strong>
          {choice.description && (
            <span class="steer-choice-description">
              <VisibleText text={choice.description} />
            </span>
          )}
        </button>
      ))}
      {what === 'model' && controls.value.price && (
        <p class="hint">
          {dollars(controls.value.price.inputPerMTok)} in · {dollars(controls.value.price.outputPerMTok)} out per
          million tokens ({controls.value.price.source === 'config' ? "the computer's prices.json" : "Tether's table"},
          as of {controls.value.price.asOf})
        </p>
      )}
      {what === 'model' && !controls.value.price && session.kind === 'agent' && (
        <p class="hint">No price is known for this model: its tokens are counted, its cost is not shown.</p>
      )}
      {error && (
        <p class="error-text" role="alert">
          Not changed: {error}
        </p>
      )}
    </fieldset>
  );
}

/** What the session spent (the last run's and the whole session's) and its budget: set, raised, removed. */
function BudgetPanel({ session, client, canChat, onDone }: Props) {
  const [tokens, setTokens] = useState(session.budget?.tokens !== undefined ? String(session.budget.tokens) : '');
  const [usd, setUsd] = useState(session.budget?.usd !== undefined ? String(session.budget.usd) : '');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const a = session.activity;
  const save = async (budget: SessionBudget | null) => {
    setBusy(true);
    setError('');
    const result = await client.call('sessions.setBudget', { id: session.id, budget });
    setBusy(false);
    if (result.ok) onDone();
    else setError(result.error.message);
  };
  const submit = () => {
    const t = tokens.trim() === '' ? undefined : Number(tokens.replace(/[_,\s]/g, ''));
    const d = usd.trim() === '' ? undefined : Number(usd.replace(/^\$/, ''));
    if (t === undefined && d === undefined) return setError('Say a number of tokens, dollars, or both.');
    if (t !== undefined && (!Number.isInteger(t) || t < 1 || t > MAX_BUDGET_TOKENS))
      return setError('Tokens: a whole number, at least 1.');
    if (d !== undefined && (!Number.isFinite(d) || d < 0.01 || d > MAX_BUDGET_USD))
      return setError('Dollars: at least 0.01.');
    void save({ ...(t !== undefined ? { tokens: t } : {}), ...(d !== undefined ? { usd: d } : {}) });
  };
  return (
    <form
      class="steer-budget"
      data-steer-panel="budget"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <p>
        Spent: {spendLine({ activity: a })}
        {runTokens(session) && ` · last run ${runTokens(session)}`}
        {a?.unpricedCalls ? ` · ${a.unpricedCalls} calls without a known price are not in the cost` : ''}
      </p>
      {canChat && (
        <>
          <div class="steer-budget-fields">
            <label>
              Tokens (in and out){' '}
              <input
                inputMode="numeric"
                name="budget-tokens"
                value={tokens}
                placeholder="e.g. 200000"
                onInput={(e) => setTokens(e.currentTarget.value)}
              />
            </label>
            <label>
              US dollars{' '}
              <input inputMode="decimal" name="budget-usd" value={usd} onInput={(e) => setUsd(e.currentTarget.value)} />
            </label>
          </div>
          <p class="hint">A run stops before a model call that could pass it, and waits for you; raising it goes on.</p>
          <div class="buttons">
            <button type="submit" class="primary" disabled={busy}>
              {session.budget ? 'Set budget' : 'Set a budget'}
            </button>
            {session.budget && (
              <button type="button" disabled={busy} onClick={() => void save(null)}>
                Remove budget
              </button>
            )}
          </div>
        </>
      )}
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
