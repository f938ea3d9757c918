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

/**
 * Modes an agent offers that Tether never offers on: in them the agent runs its own tools without
 * asking (Gemini CLI's `yolo` runs every command it decides on, inside its own process, where
 * Tether sees it only afterwards). Claude Code's modes all leave its commands and edits to
 * Tether's terminals and files, which ask whatever the mode; Codex offers none under Tether's
 * sandbox.
 */
export function withheldModes(family: AgentFamily): readonly string[] {
  return family === 'gemini' ? ['yolo'] : [];
}
