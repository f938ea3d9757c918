import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@tether/shared-protocol/testing';
import { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import type { FakeModelServer } from '../../test/fakes/fake-model-server.js';
import { FakeOpenAIServer } from '../../test/fakes/fake-openai-server.js';
import { collect, makeRequest, textOf } from '../../test/fakes/model-stream.js';
import type { ModelSpec } from './model-spec.js';
import { createProvider } from './registry.js';
import type { RetryNotice } from './retry.js';
import type { ModelProvider } from './types.js';

const ANTHROPIC: ModelSpec = { provider: 'anthropic', model: 'claude-test' };
const OPENAI: ModelSpec = { provider: 'openai', model: 'gpt-test' };

function provider(result: ReturnType<typeof createProvider>): ModelProvider {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('createProvider', () => {
  const servers: FakeModelServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  async function started<T extends FakeModelServer>(server: T): Promise<[T, string]> {
    servers.push(server);
    return [server, await server.start()];
  }

  it('builds the demo without any key', () => {
    expect(provider(createProvider({ provider: 'demo', model: 'demo' }, {})).spec).toBe('demo');
  });

  it.each([
    [ANTHROPIC, 'ANTHROPIC_API_KEY'],
    [OPENAI, 'OPENAI_API_KEY'],
  ])('refuses %j without %s, pointing at the demo', (spec, variable) => {
    const result = createProvider(spec, { [variable]: '  ' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toContain(`needs ${variable}`);
    expect(result.error.message).toContain('--model demo');
  });

  it('builds an OpenAI-compatible provider without a key', () => {
    const spec: ModelSpec = { provider: 'openai-compatible', model: 'llama3', baseUrl: 'http://localhost:11434/v1' };
    expect(provider(createProvider(spec, {})).spec).toBe('openai-compatible:llama3@http://localhost:11434/v1');
  });

  it('points the Anthropic SDK at ANTHROPIC_BASE_URL', async () => {
    const [server, baseUrl] = await started(new FakeAnthropicServer());
    server.enqueue({ text: ['from the fake'] });
    const made = provider(createProvider(ANTHROPIC, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: baseUrl }));
    expect(textOf(await collect(made.stream(makeRequest())))).toBe('from the fake');
    expect(server.requests).toHaveLength(1);
  });

  it('points the OpenAI SDK at OPENAI_BASE_URL', async () => {
    const [server, baseUrl] = await started(new FakeOpenAIServer());
    server.enqueue({ text: ['from the fake'] });
    const made = provider(createProvider(OPENAI, { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: baseUrl }));
    expect(textOf(await collect(made.stream(makeRequest())))).toBe('from the fake');
    expect(server.requests[0]).toMatchObject({ model: 'test-model' });
  });

  it('refuses a base URL variable that is not http(s)', () => {
    const result = createProvider(ANTHROPIC, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'localhost:8080' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toBe('ANTHROPIC_BASE_URL="localhost:8080" is not an http(s) URL');
  });

  it('wraps the provider in withRetry when asked', async () => {
    const [server, baseUrl] = await started(new FakeOpenAIServer());
    server.enqueue({ error: { status: 503, message: 'busy' } }, { text: ['second try'] });
    const clock = new ManualClock();
    const notices: RetryNotice[] = [];
    const made = provider(
      createProvider(
        OPENAI,
        { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: baseUrl },
        {
          clock,
          retry: {
            onRetry: (notice) => {
              notices.push(notice);
              queueMicrotask(() => clock.advance(notice.delayMs));
            },
          },
        },
      ),
    );
    expect(textOf(await collect(made.stream(makeRequest())))).toBe('second try');
    expect(notices).toHaveLength(1);
    expect(made.spec).toBe('openai:gpt-test');
  });
});
