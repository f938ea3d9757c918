import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../host.js';
import { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import type { TestHost } from '../../test/support/test-host.js';
import { startTestHost } from '../../test/support/test-host.js';
import { configuredWindow, decodeModelConfig } from './model-config.js';

let t: TestHost | undefined;
let fake: FakeAnthropicServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = fake = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const message = (text: string) => {
  const decoded = decodeModelConfig(text);
  return decoded.ok ? 'accepted' : decoded.error.message;
};

/** A data dir holding `models.json` with `text`. */
function dataDirWith(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tether-models-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'data'), { mode: 0o700 });
  writeFileSync(join(dir, 'data', 'models.json'), text);
  return join(dir, 'data');
}

describe('the model config', () => {
  it('gives a model its context window, by its spec written any way --model takes it', () => {
    const decoded = decodeModelConfig(
      JSON.stringify({
        models: {
          'openai-compatible:llama3.1:8b@http://localhost:11434/v1': { contextWindow: 32768 },
          ' anthropic:claude-test ': { contextWindow: 50000 },
        },
      }),
    );
    if (!decoded.ok) throw new Error(decoded.error.message);
    const llama = {
      provider: 'openai-compatible',
      model: 'llama3.1:8b',
      baseUrl: 'http://localhost:11434/v1',
    } as const;
    expect(configuredWindow(decoded.value, llama)).toBe(32768);
    expect(configuredWindow(decoded.value, { provider: 'anthropic', model: 'claude-test' })).toBe(50000);
    expect(configuredWindow(decoded.value, { provider: 'openai', model: 'gpt-5.4' })).toBeUndefined();
  });

  it('refuses what it does not define, and windows out of range, naming the place', () => {
    expect(message('{"models":{"demo":{"contextWindow":8192,"maxTokens":5}}}')).toBe(
      'models.demo.maxTokens: is a field the model config does not define',
    );
    expect(message('{"models":{"demo":{}}}')).toBe('models.demo.contextWindow: is required');
    expect(message('{"models":{"demo":{"contextWindow":100}}}')).toBe(
      'models.demo.contextWindow: must be at least 4096 tokens',
    );
    expect(message('{"models":{"demo":{"contextWindow":8192.5}}}')).toMatch(/must be a whole number/);
    expect(message('{"models":{"gpt-4":{"contextWindow":8192}}}')).toMatch(/is not a model spec/);
    expect(message('{"model":{}}')).toMatch(/is a field the model config does not define/);
    expect(message('[]')).toBe('the file must hold a JSON object');
  });

  it("is the window a session's model runs with, and a bad file stops the host's start", async () => {
    fake = new FakeAnthropicServer();
    const url = await fake.start();
    t = await startTestHost({
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url },
      model: 'anthropic:claude-test',
      dataDir: dataDirWith(JSON.stringify({ models: { 'anthropic:claude-test': { contextWindow: 16384 } } })),
    });
    fake.enqueue({ text: ['ok'], usage: { input: 1000, output: 5 } });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hi' });
    if (!created.ok) throw new Error(created.error.message);
    await t.waitFor(created.value.id, (e: SessionEvent) => e.type === 'run.finished');
    expect(t.host.parts.sessions.get(created.value.id)?.activity?.context).toMatchObject({ window: 16384 });

    const bad = dataDirWith('{"models":{"demo":{"contextWindow":"big"}}}');
    const started = await Host.start({ dataDir: bad, env: {}, keepAwake: { enabled: false } });
    expect(started.ok ? 'started' : started.error.message).toBe(
      `model config ${join(bad, 'models.json')}: models.demo.contextWindow: must be a number of tokens`,
    );
  });
});
