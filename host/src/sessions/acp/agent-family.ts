import { basename } from 'node:path';
import type { AgentSpec } from './agent-config.js';

/**
 * Which adapter an agent is, by its program: what Tether knows of how it loads a folder's own
 * configuration and how its own tools can be bound (agent-bounds.ts). Any other ACP agent is
 * `other`: Tether cannot tell it what not to load, which docs/agents.md says.
 */
export type AgentFamily = 'claude-code' | 'codex' | 'gemini' | 'other';

export function agentFamily(spec: Pick<AgentSpec, 'command' | 'args'>): AgentFamily {
  const program = basename(spec.command).replace(/\.(c?js|mjs|exe|cmd)$/i, '');
  if (program === 'claude-code-acp') return 'claude-code';
  if (program === 'codex-acp') return 'codex';
  if (program === 'gemini' && spec.args.some((a) => a === '--experimental-acp' || a === '--acp')) return 'gemini';
  return 'other';
}
