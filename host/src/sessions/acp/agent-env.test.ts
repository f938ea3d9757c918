import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestHost } from '../../../test/support/test-host.js';
import { startTestHost } from '../../../test/support/test-host.js';
import { agentEnv, isHidden } from './agent-env.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/acp-scripted-agent.mjs', import.meta.url));

describe("an agent's own variables", () => {
  const spec = {
    env: { MODE: 'acp', ANTHROPIC_API_KEY: 'from-config' },
    passEnv: ['OPENAI_API_KEY', 'EMPTY', 'UNSET'],
  };
  const host = { OPENAI_API_KEY: 'sk-host', EMPTY: '', OTHER: 'x', TETHER_TOKEN: 'secret' };

  it('are its env, then the host’s values of the names in passEnv, set ones only', () => {
    expect(agentEnv(spec, 'local', host)).toEqual({
      MODE: 'acp',
      ANTHROPIC_API_KEY: 'from-config',
      OPENAI_API_KEY: 'sk-host',
    });
  });

  it('on a machine are its env only: the host’s keys never travel', () => {
    expect(agentEnv(spec, 'laptop', host)).toEqual({ MODE: 'acp', ANTHROPIC_API_KEY: 'from-config' });
  });

  it("never take Tether's own variables from the host, even when named", () => {
    expect(agentEnv({ env: {}, passEnv: ['TETHER_TOKEN'] }, 'local', host)).toEqual({});
  });

  it('sit on an environment without the keys Tether reads and its own variables', () => {
    expect(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'TETHER_DATA_DIR', 'TETHER_TOKEN'].every(isHidden)).toBe(true);
    expect(['HOME', 'PATH', 'GEMINI_API_KEY', 'ANTHROPIC_BASE_URL'].some(isHidden)).toBe(false);
  });
});

describe('an agent process, started by a real host', () => {
  let host: TestHost | undefined;
  let config: string | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
    if (config) rmSync(config, { recursive: true, force: true });
    config = undefined;
    vi.unstubAllEnvs();
  });

  it('gets the person’s environment without the keys Tether reads and its own variables, plus its env and passEnv', async () => {
    // The environment the host runs in is the person's: the agent starts from it.
    vi.stubEnv('PERSON_VARIABLE', 'mine');
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-of-the-host');
    vi.stubEnv('OPENAI_API_KEY', 'sk-openai-of-the-host');
    vi.stubEnv('TETHER_SOMETHING', 'tether-only');
    config = mkdtempSync(join(tmpdir(), 'tether-agent-env-'));
    const agentsConfig = join(config, 'agents.json');
    writeFileSync(
      agentsConfig,
      JSON.stringify({
        agents: {
          scripted: {
            command: process.execPath,
            args: [FIXTURE],
            env: { MODE: 'acp' },
            passEnv: ['ANTHROPIC_API_KEY'],
          },
        },
      }),
    );
    host = await startTestHost({ agentsConfig, env: { ANTHROPIC_API_KEY: 'sk-ant-of-the-host' } });
    const names = ['PERSON_VARIABLE', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'TETHER_SOMETHING', 'MODE'];
    const created = await host.host.parts.sessions.create({
      cwd: host.project,
      text: names.map((name) => `env ${name}\nsay ;`).join('\n'),
      kind: 'acp',
      model: 'scripted',
    });
    if (!created.ok) throw new Error(created.error.message);
    await host.waitFor(created.value.id, (e) => e.type === 'run.finished');
    const said = host
      .events(created.value.id)
      .flatMap((e) => (e.type === 'message' && e.role === 'assistant' ? [e.text] : []))
      .join('');
    expect(said).toBe(
      'PERSON_VARIABLE=mine;ANTHROPIC_API_KEY=sk-ant-of-the-host;OPENAI_API_KEY unset;TETHER_SOMETHING unset;MODE=acp;',
    );
  });
});
