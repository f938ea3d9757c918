import type { DeviceClient, SessionBudget, SessionControls } from '@tether/shared-protocol';
import { MAX_BUDGET_TOKENS } from '@tether/shared-protocol';
import { useEffect, useState } from 'preact/hooks';

/** How a new session starts besides who runs it: its mode, an agent's own model, a budget. */
export interface StartChoice {
  mode?: string;
  agentModel?: string;
  budget?: SessionBudget;
}

/** Tether's own loop's modes (docs/own-loop.md); an agent's come from what it offered last. */
const OWN_MODES = [
  { id: 'default', name: 'Default' },
  { id: 'plan', name: 'Plan: look first, then a plan for you to accept' },
];

/**
 * The New session screen's start options. For an ACP agent, its modes and models are those it
 * offered the last time it ran on this computer (`agents.controls`): until it has run once, it
 * starts in its own defaults and says what it offers then.
 */
export function StartOptions({
  client,
  agent,
  onChange,
}: {
  client: DeviceClient;
  /** '' for Tether's own loop. */
  agent: string;
  onChange: (choice: StartChoice) => void;
}) {
  const [offers, setOffers] = useState<SessionControls | undefined>();
  const [mode, setMode] = useState('');
  const [agentModel, setAgentModel] = useState('');
  const [tokens, setTokens] = useState('');
  useEffect(() => {
    setOffers(undefined);
    setMode('');
    setAgentModel('');
    if (agent === '') return undefined;
    let live = true;
    void client.call('agents.controls', { agent }).then((r) => live && r.ok && setOffers(r.value));
    return () => {
      live = false;
    };
  }, [client, agent]);
  useEffect(() => {
    const n = Number(tokens.replace(/[_,\s]/g, ''));
    const budget =
      tokens.trim() !== '' && Number.isInteger(n) && n >= 1 && n <= MAX_BUDGET_TOKENS ? { tokens: n } : undefined;
    onChange({
      ...(mode ? { mode } : {}),
      ...(agentModel ? { agentModel } : {}),
      ...(budget ? { budget } : {}),
    });
  }, [mode, agentModel, tokens]);
  const modes = agent === '' ? OWN_MODES : (offers?.modes ?? []);
  const models = agent === '' ? [] : (offers?.models ?? []);
  return (
    <>
      {modes.length > 0 && (
        <>
          <label for="session-mode">Mode</label>
          <select id="session-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
            <option value="">{agent === '' ? 'Default' : 'its default'}</option>
            {modes
              .filter((m) => agent !== '' || m.id !== 'default')
              .map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
          </select>
        </>
      )}
      {models.length > 0 && (
        <>
          <label for="session-agent-model">The agent's model</label>
          <select id="session-agent-model" value={agentModel} onChange={(e) => setAgentModel(e.currentTarget.value)}>
            <option value="">its default</option>
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </>
      )}
      {offers?.note && <p class="hint">{offers.note}</p>}
      <label for="session-budget">Budget in tokens (optional)</label>
      <input
        id="session-budget"
        type="text"
        inputMode="numeric"
        value={tokens}
        placeholder="no budget"
        onInput={(e) => setTokens(e.currentTarget.value)}
      />
    </>
  );
}
