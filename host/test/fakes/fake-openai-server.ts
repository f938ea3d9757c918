import { FakeModelServer, type ModelApiDialect } from './fake-model-server.js';
import { type ScriptedTurn, usageOf } from './scripted-response.js';
import { sseFrame } from './sse.js';

/**
 * A loopback stand-in for the OpenAI Chat Completions API (`POST /v1/chat/completions`,
 * streaming), which OpenAI-compatible servers (vLLM, Ollama, LM Studio…) also speak.
 *
 *   const server = new FakeOpenAIServer();
 *   const baseURL = await server.start();          // ends in /v1, as the SDK expects
 *   server.enqueue({ toolCalls: [{ name: 'shell', argumentChunks: ['{"comm', 'and":"ls"}'] }] });
 *   ... run the code under test ...
 *   expect(server.requests[0]).toMatchObject({ messages: [{ role: 'system', ... }] });
 *   await server.close();
 *
 * Turns are streamed as the real API does: `data: {chat.completion.chunk}` lines (role first,
 * content deltas, each tool call opened with its id and name and then its arguments in pieces,
 * by index), a chunk with the finish_reason, a usage chunk with empty choices when the request
 * asked for `stream_options.include_usage`, and `data: [DONE]`.
 */
export class FakeOpenAIServer extends FakeModelServer {
  constructor() {
    super(openaiDialect);
  }
}

/** Seconds since the epoch; fixed so recorded streams are reproducible. */
const CREATED = 1_700_000_000;

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
};

const openaiDialect: ModelApiDialect = {
  name: 'fake-openai-server',
  path: '/v1/chat/completions',
  baseUrlSuffix: '/v1',

  turnFrames(turn: ScriptedTurn, request: Record<string, unknown>, turnNumber: number): string[] {
    const model = typeof request['model'] === 'string' ? request['model'] : 'gpt-fake';
    const chunk = (choices: unknown[], usage: unknown = null): string =>
      sseFrame(
        JSON.stringify({
          id: `chatcmpl-fake-${turnNumber}`,
          object: 'chat.completion.chunk',
          created: CREATED,
          model,
          system_fingerprint: 'fp_fake',
          choices,
          usage,
        }),
      );
    const delta = (value: Record<string, unknown>, finishReason: string | null = null): string =>
      chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }]);

    const toolCalls = turn.toolCalls ?? [];
    const frames = [delta({ role: 'assistant', content: '', refusal: null })];
    for (const content of turn.text ?? []) frames.push(delta({ content }));
    for (const [index, call] of toolCalls.entries()) {
      const id = call.id ?? `call_fake_${turnNumber}_${index}`;
      frames.push(
        delta({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }),
      );
      for (const piece of call.argumentChunks) {
        frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    }
    frames.push(delta({}, turn.stopReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop')));
    const options = request['stream_options'];
    if (
      typeof options === 'object' &&
      options !== null &&
      'include_usage' in options &&
      options.include_usage === true
    ) {
      const usage = usageOf(turn, request);
      frames.push(
        chunk([], {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        }),
      );
    }
    frames.push(sseFrame('[DONE]'));
    return frames;
  },

  streamErrorFrame(type: string, message: string): string {
    return sseFrame(JSON.stringify({ error: { message, type, param: null, code: null } }));
  },

  malformedFrame(): string {
    return sseFrame('{"id": "chatcmpl-fake", "choices": [');
  },

  errorBody(status: number, message: string, type: string | undefined): unknown {
    const known = ERROR_TYPES[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
    return { error: { message, type: type ?? known.type, param: null, code: known.code } };
  },
};
