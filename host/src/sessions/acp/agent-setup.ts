import type { AgentSpec } from './agent-config.js';

/**
 * How to set up each ready agent on the computer (docs/agents.md), told with one whose command is
 * not found: the app's New session screen and `tether agents` say it. Only for a ready agent's own
 * command: an entry of agents.json that replaces it runs something else, which this cannot know.
 */
const READY_SETUP: Readonly<Record<string, { command: string; setup: string }>> = {
  'claude-code': {
    command: 'claude-code-acp',
    setup:
      'npm install -g @zed-industries/claude-code-acp, then sign in once with claude /login (or set ANTHROPIC_API_KEY)',
  },
  codex: {
    command: 'codex-acp',
    setup: 'npm install -g @zed-industries/codex-acp, then sign in with codex login (or set OPENAI_API_KEY)',
  },
  gemini: {
    command: 'gemini',
    setup: 'npm install -g @google/gemini-cli, then run gemini once to sign in',
  },
};

export function setupHint(spec: Pick<AgentSpec, 'name' | 'command'>): string | undefined {
  const ready = Object.hasOwn(READY_SETUP, spec.name) ? READY_SETUP[spec.name] : undefined;
  return ready?.command === spec.command ? ready.setup : undefined;
}
