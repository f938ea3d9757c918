import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT_WINDOW, contextWindowFor, isContextOverflow, parseContextWindow } from './context-window.js';
import { ProviderError } from './types.js';

describe('context windows', () => {
  it('knows the Anthropic and OpenAI models, and assumes the default for the rest', () => {
    expect(contextWindowFor({ provider: 'anthropic', model: 'claude-sonnet-4-5' })).toBe(200_000);
    expect(contextWindowFor({ provider: 'openai', model: 'gpt-4.1-mini' })).toBe(1_047_576);
    expect(contextWindowFor({ provider: 'openai', model: 'gpt-4o-mini' })).toBe(128_000);
    expect(contextWindowFor({ provider: 'openai', model: 'gpt-4' })).toBe(8_192);
    expect(contextWindowFor({ provider: 'openai', model: 'gpt-5.4' })).toBe(400_000);
    expect(contextWindowFor({ provider: 'openai', model: 'davinci' })).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(
      contextWindowFor({ provider: 'openai-compatible', model: 'llama3.1:8b', baseUrl: 'http://127.0.0.1:1/v1' }),
    ).toBe(DEFAULT_CONTEXT_WINDOW);
  });

  it('takes --context-window as whole tokens in range only', () => {
    expect(parseContextWindow('8192')).toBe(8192);
    expect(parseContextWindow('4095')).toBeNull();
    expect(parseContextWindow('1e6')).toBeNull();
    expect(parseContextWindow('99999999')).toBeNull();
  });

  it("tells the APIs' context-length refusals from other client errors", () => {
    const anthropic = new ProviderError('prompt is too long: 210000 tokens > 200000 maximum', 'client', 400);
    const openai = new ProviderError(
      "This model's maximum context length is 128000 tokens. (context_length_exceeded)",
      'client',
      400,
    );
    expect(isContextOverflow(anthropic)).toBe(true);
    expect(isContextOverflow(openai)).toBe(true);
    expect(isContextOverflow(new ProviderError('invalid x-api-key', 'client', 401))).toBe(false);
    expect(isContextOverflow(new ProviderError('prompt is too long', 'server', 500))).toBe(false);
    expect(isContextOverflow(new Error('prompt is too long'))).toBe(false);
  });
});
