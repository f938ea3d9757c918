import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../../test/fakes/fake-openai-server.js';
import { collect, makeRequest } from '../../test/fakes/model-stream.js';
import { describeProviderContract } from '../../test/fakes/provider-contract.js';
import { OpenAIProvider } from './openai.js';

describeProviderContract({
  name: 'OpenAIProvider',
  newServer: () => new FakeOpenAIServer(),
  newProvider: (baseUrl, options) =>
    new OpenAIProvider({ flavor: 'openai', apiKey: 'test-key', baseUrl, model: 'gpt-test', ...options }),
  maxTokensStopReason: 'length',
  otherStopReason: 'content_filter',
  overloadedErrorType: 'server_error',
  rateLimitErrorType: 'rate_limit_exceeded',
});

describe('OpenAIProvider requests', () => {
  let server: FakeOpenAIServer;
  let baseUrl: string;
  beforeEach(async () => {
    server = new FakeOpenAIServer();
    baseUrl = await server.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('sends the system message first, assistant tool_calls and one tool message per result', async () => {
    server.enqueue({ text: ['ok'] });
    const provider = new OpenAIProvider({ flavor: 'openai', apiKey: 'test-key', baseUrl, model: 'gpt-test' });
    await collect(
      provider.stream(
        makeRequest({
          model: 'gpt-5',
          system: 'Be brief.',
          maxTokens: 2048,
          tools: [{ name: 'shell', description: 'Runs a command', inputSchema: { type: 'object', properties: {} } }],
          messages: [
            { role: 'user', text: 'list files' },
            {
              role: 'assistant',
              text: '',
              toolCalls: [
                { id: 'call_1', name: 'shell', arguments: '{"command":"ls"}' },
                { id: 'call_2', name: 'shell', arguments: '{"command": "rm' },
              ],
            },
            {
              role: 'tool',
              results: [
                { toolCallId: 'call_1', name: 'shell', output: 'a.txt\n', isError: false },
                { toolCallId: 'call_2', name: 'shell', output: 'The user denied this command.', isError: true },
              ],
            },
            { role: 'user', text: 'why rm?' },
          ],
        }),
      ),
    );
    expect(server.requests).toEqual([
      {
        model: 'gpt-5',
        stream: true,
        stream_options: { include_usage: true },
        max_completion_tokens: 2048,
        tools: [
          {
            type: 'function',
            function: { name: 'shell', description: 'Runs a command', parameters: { type: 'object', properties: {} } },
          },
        ],
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'list files' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'shell', arguments: '{"command":"ls"}' } },
              { id: 'call_2', type: 'function', function: { name: 'shell', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'a.txt\n' },
          // No error flag in Chat Completions: the text says it.
          { role: 'tool', tool_call_id: 'call_2', content: 'Error: The user denied this command.' },
          { role: 'user', content: 'why rm?' },
        ],
      },
    ]);
    expect(server.requestHeaders[0]?.authorization).toBe('Bearer test-key');
  });

  it('talks to a compatible server with max_tokens and a placeholder key', async () => {
    server.enqueue({ text: ['hi'] });
    const provider = new OpenAIProvider({ flavor: 'openai-compatible', baseUrl, model: 'llama3.1:8b' });
    expect(provider.spec).toBe(`openai-compatible:llama3.1:8b@${baseUrl}`);
    await collect(provider.stream(makeRequest({ model: '', system: '', maxTokens: 100 })));
    const body = server.requests[0];
    expect(body).toMatchObject({
      model: 'llama3.1:8b',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(body).not.toHaveProperty('max_completion_tokens');
    expect(body).not.toHaveProperty('tools');
    expect(server.requestHeaders[0]?.authorization).toBe('Bearer not-needed');
  });

  it('treats tool calls that finish with "stop" as tool use (older compatible servers)', async () => {
    server.enqueue({ toolCalls: [{ id: 'c', name: 'shell', argumentChunks: ['{}'] }], stopReason: 'stop' });
    const events = await collect(
      new OpenAIProvider({ flavor: 'openai-compatible', baseUrl, model: 'm' }).stream(makeRequest()),
    );
    expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'tool-use' });
  });

  it('names itself by its spec', () => {
    expect(new OpenAIProvider({ flavor: 'openai', apiKey: 'k', model: 'gpt-5' }).spec).toBe('openai:gpt-5');
  });
});
