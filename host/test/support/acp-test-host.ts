import type { Approval, SessionEvent } from '@tether/shared-protocol';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AcpLimits } from '../../src/sessions/acp/acp-backend.js';
import type { TestHost } from './test-host.js';
import { startTestHost } from './test-host.js';

export const SCRIPTED_AGENT = fileURLToPath(new URL('../fixtures/acp-scripted-agent.mjs', import.meta.url));

export type Of<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

/**
 * A real host whose agents.json names the scripted agent `scripted` (title "Scripted", run by this
 * Node), plus any more `agents` given. `rules` is where the scripted agent writes a rule it is
 * told to keep for every later session (as Codex writes `rules/default.rules`).
 */
export async function startAcpTestHost(
  options: { limits?: Partial<AcpLimits>; agents?: Record<string, unknown> } = {},
): Promise<{ host: TestHost; rules: string; close(): Promise<void> }> {
  const config = mkdtempSync(join(tmpdir(), 'tether-acp-'));
  const agentsConfig = join(config, 'agents.json');
  const rules = join(config, 'default.rules');
  writeFileSync(
    agentsConfig,
    JSON.stringify({
      agents: {
        scripted: {
          title: 'Scripted',
          command: process.execPath,
          args: [SCRIPTED_AGENT],
          env: { SCRIPTED_ACP_RULES: rules },
        },
        ...options.agents,
      },
    }),
  );
  const host = await startTestHost({ agentsConfig, ...(options.limits ? { acpLimits: options.limits } : {}) });
  return {
    host,
    rules,
    close: async () => {
      await host.close();
      rmSync(config, { recursive: true, force: true });
    },
  };
}

export async function startAgentSession(host: TestHost, text: string, agent = 'scripted'): Promise<string> {
  const created = await host.host.parts.sessions.create({ cwd: host.project, text, kind: 'acp', model: agent });
  if (!created.ok) throw new Error(created.error.message);
  return created.value.id;
}

export function runFinished(host: TestHost, id: string, nth = 1): Promise<Of<'run.finished'>> {
  let seen = 0;
  return host.waitFor(id, (e) => e.type === 'run.finished' && ++seen === nth) as Promise<Of<'run.finished'>>;
}

export async function nthApproval(host: TestHost, id: string, nth = 1): Promise<Approval> {
  let seen = 0;
  const event = await host.waitFor(id, (e) => e.type === 'approval.requested' && ++seen === nth);
  return (event as Of<'approval.requested'>).approval;
}

export function eventsOf<T extends SessionEvent['type']>(host: TestHost, id: string, type: T): Of<T>[] {
  return host.events(id).filter((e): e is Of<T> => e.type === type);
}

export function assistantText(host: TestHost, id: string): string {
  return eventsOf(host, id, 'message')
    .filter((e) => e.role === 'assistant')
    .map((e) => e.text)
    .join('\n');
}
