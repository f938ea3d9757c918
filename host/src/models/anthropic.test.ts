import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import { collect, makeRequest } from '../../test/fakes/model-stream.js';
import { describeProviderContract } from '../../test/fakes/provider-contract.js';
import { AnthropicProvider, AnthropicTurnReader } from './anthropic.js';
import type { ModelEvent } from './types.js';

describeProviderContract({
  name: 'AnthropicProvider',
  newServer: () => new FakeAnthropicServer(),
  newProvider: (baseUrl, options) =>
    new AnthropicProvider({ apiKey: 'test-key', baseUrl, model: 'claude-test', ...options }),
  maxTokensStopReason: 'max_tokens',
  otherStopReason: 'refusal',
  overloadedErrorType: 'overloaded_error',
  rateLimitErrorType: 'rate_limit_error',
});

describe('AnthropicProvider requests', () => {
  let server: FakeAnthropicServer;
  let baseUrl: string;
  beforeEach(async () => {
    server = new FakeAnthropicServer();
    baseUrl = await server.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('sends the system prompt, tools and a transcript whose roles alternate', async () => {
    server.enqueue({ text: ['ok'] });
    const provider = new AnthropicProvider({ apiKey: 'test-key', baseUrl, model: 'claude-test' });
    await collect(
      provider.stream(
        makeRequest({
          model: 'claude-test-2',
          system: 'Be brief.',
          maxTokens: 2048,
          tools: [
            {
              name: 'shell',
              description: 'Runs a command',
              inputSchema: { properties: { command: { type: 'string' } } },
            },
          ],
          messages: [
            { role: 'user', text: 'list files' },
            {
              role: 'assistant',
              text: 'Listing.',
              toolCalls: [
                { id: 'toolu_1', name: 'shell', arguments: '{"command":"ls"}' },
                { id: 'toolu_2', name: 'shell', arguments: '{"command": "rm' },
              ],
            },
            {
              role: 'tool',
              results: [
                { toolCallId: 'toolu_1', name: 'shell', output: 'a.txt\n', isError: false },
                { toolCallId: 'toolu_2', name: 'shell', output: 'The user denied this command.', isError: true },
              ],
            },
            { role: 'user', text: 'why did you try rm?' },
          ],
        }),
      ),
    );
    expect(server.requests).toEqual([
      {
        model: 'claude-test-2',
        max_tokens: 2048,
        stream: true,
        system: 'Be brief.',
        tools: [
          {
            name: 'shell',
            description: 'Runs a command',
            input_schema: { type: 'object', properties: { command: { type: 'string' } } },
          },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'list files' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Listing.' },
              { type: 'tool_use', id: 'toolu_1', name: 'shell', input: { command: 'ls' } },
              // Malformed arguments: the loop already told the model; the API needs an object.
              { type: 'tool_use', id: 'toolu_2', name: 'shell', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', is_error: false, content: 'a.txt\n' },
              { type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: 'The user denied this command.' },
              { type: 'text', text: 'why did you try rm?' },
            ],
          },
        ],
      },
    ]);
    // SDK 1.x sends the API key as a bearer token.
    expect(server.requestHeaders[0]?.authorization).toBe('Bearer test-key');
  });

  it('leaves out an empty system prompt, an empty tool list and empty text', async () => {
    server.enqueue({ text: ['ok'] });
    const provider = new AnthropicProvider({ apiKey: 'k', baseUrl, model: 'claude-test' });
    await collect(
      provider.stream(
        makeRequest({
          model: '',
          system: '',
          messages: [
            { role: 'user', text: 'go' },
            { role: 'assistant', text: '', toolCalls: [{ id: 't1', name: 'status', arguments: '' }] },
            { role: 'tool', results: [{ toolCallId: 't1', name: 'status', output: '', isError: false }] },
          ],
        }),
      ),
    );
    const body = server.requests[0];
    expect(body).not.toHaveProperty('system');
    expect(body).not.toHaveProperty('tools');
    // A request without a model name uses the provider's.
    expect(body?.['model']).toBe('claude-test');
    expect(body?.['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'status', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', is_error: false }] },
    ]);
  });

  it('names itself by its spec', () => {
    expect(new AnthropicProvider({ apiKey: 'k', model: 'claude-sonnet-4-5' }).spec).toBe('anthropic:claude-sonnet-4-5');
  });
});

describe('AnthropicTurnReader', () => {
  it('counts cached prompt tokens as input and takes the last output total', () => {
    const reader = new AnthropicTurnReader();
    const events: ModelEvent[] = [];
    const usage = {
      input_tokens: 5,
      output_tokens: 1,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 1000,
      cache_creation: null,
      inference_geo: null,
      output_tokens_details: null,
      server_tool_use: null,
    };
    const message = {
      id: 'm',
      type: 'message' as const,
      role: 'assistant' as const,
      model: 'x',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    };
    // The reader only looks at the fields above; the SDK's full Message type has many more.
    events.push(...reader.read({ type: 'message_start', message: message as never }));
    events.push(
      ...reader.read({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null, container: null, stop_details: null },
        usage: { ...usage, output_tokens: 42 },
      }),
    );
    expect(reader.finished).toBe(false);
    events.push(...reader.read({ type: 'message_stop' }));
    expect(events).toEqual([
      { type: 'usage', inputTokens: 1105, outputTokens: 42 },
      { type: 'end', stopReason: 'end' },
    ]);
    expect(reader.finished).toBe(true);
  });
});
