import { describe, expect, it } from 'vitest';
import { defaultModelSpec, formatModelSpec, parseModelSpec, type ModelSpec } from './model-spec.js';

describe('parseModelSpec', () => {
  it.each<[string, ModelSpec]>([
    ['anthropic:claude-sonnet-4-5', { provider: 'anthropic', model: 'claude-sonnet-4-5' }],
    ['openai:gpt-5', { provider: 'openai', model: 'gpt-5' }],
    ['demo', { provider: 'demo', model: 'demo' }],
    ['  demo  ', { provider: 'demo', model: 'demo' }],
    [
      'openai-compatible:llama3.1:8b@http://localhost:11434/v1',
      { provider: 'openai-compatible', model: 'llama3.1:8b', baseUrl: 'http://localhost:11434/v1' },
    ],
    [
      'openai-compatible:org/model@v2@https://user:pw@llm.example.com/v1',
      { provider: 'openai-compatible', model: 'org/model@v2', baseUrl: 'https://user:pw@llm.example.com/v1' },
    ],
  ])('accepts %s', (text, spec) => {
    expect(parseModelSpec(text)).toEqual({ ok: true, value: spec });
  });

  it.each([
    ['', 'names no provider'],
    ['gpt-5', 'names no provider'],
    ['anthropic:', 'model name is empty'],
    ['openai:gpt 5', 'contains a space'],
    ['mistral:large', 'unknown provider "mistral"'],
    ['demo:fast', 'takes no name'],
    ['openai-compatible:llama3', 'needs a base URL'],
    ['openai-compatible:llama3@ftp://host/v1', 'needs a base URL'],
    ['openai-compatible:@http://localhost:8000/v1', 'model name is empty'],
    ['openai-compatible:m@http://', 'not a valid URL'],
  ])('rejects %j (%s) and says what is accepted', (text, problem) => {
    const result = parseModelSpec(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toContain(problem);
    expect(result.error.message).toContain('Accepted: anthropic:<model>');
    expect(result.error.message).toContain('openai-compatible:<model>@<http(s) base URL>');
  });
});

describe('formatModelSpec', () => {
  it.each([
    'anthropic:claude-sonnet-4-5',
    'openai:gpt-5',
    'demo',
    'openai-compatible:llama3.1:8b@http://localhost:11434/v1',
  ])('writes %s back as it was parsed', (text) => {
    const parsed = parseModelSpec(text);
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(formatModelSpec(parsed.value)).toBe(text);
  });
});

describe('defaultModelSpec', () => {
  it('prefers Anthropic, then OpenAI, then the demo, ignoring blank keys', () => {
    expect(defaultModelSpec({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' })).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-5-5',
    });
    expect(defaultModelSpec({ ANTHROPIC_API_KEY: ' ', OPENAI_API_KEY: 'o' })).toEqual({
      provider: 'openai',
      model: 'gpt-5.4',
    });
    expect(defaultModelSpec({})).toEqual({ provider: 'demo', model: 'demo' });
  });
});
