import type { AgentInfo } from '@tether/shared-protocol';
import { VisibleText } from './visible-text.js';

/**
 * On New session, when the computer can start no agent: the agents it could run and how to add one
 * there, and that an agent's own earlier sessions can then be continued from here. What the host
 * says of an agent is shown as text, its hidden characters marked.
 */
export function AgentsHint({ agents }: { agents: readonly AgentInfo[] }) {
  return (
    <section class="agents-hint" aria-label="Agents" data-agents-hint>
      <h2 class="section-title">Agents</h2>
      {agents.length > 0 ? (
        <>
          <p>Besides Tether with a model, this computer can run a coding agent once it is installed there:</p>
          <ul>
            {agents.map((a) => (
              <li key={a.name} data-agent={a.name}>
                <strong>
                  <VisibleText text={a.title} />
                </strong>
                {': '}
                {a.setup !== undefined ? (
                  <code>
                    <VisibleText text={a.setup} />
                  </code>
                ) : (
                  <VisibleText text={a.reason ?? 'it cannot be started'} />
                )}
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p>
          No coding agent is set up on this computer. Claude Code, Codex, Gemini CLI and other agents that speak ACP can
          run sessions too: see <code>tether agents</code> there.
        </p>
      )}
      <p>
        Once installed, an agent is offered here at once, with no restart (<code>tether agents</code> at the computer
        says what each one needs). With an agent chosen, its earlier sessions in the folder, started at the computer,
        can be continued from here.
      </p>
    </section>
  );
}
