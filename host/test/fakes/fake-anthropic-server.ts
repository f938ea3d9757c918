import { FakeModelServer, type ModelApiDialect } from './fake-model-server.js';
import { type ScriptedTurn, usageOf } from './scripted-response.js';
import { sseFrame } from './sse.js';

/**
 * A loopback stand-in for the Anthropic Messages API (`POST /v1/messages`, streaming).
 *
 *   const server = new FakeAnthropicServer();
 *   const baseURL = await server.start();          // give it to the SDK (or ANTHROPIC_BASE_URL)
 *   server.enqueue({ text: ['Hel', 'lo'] }, { error: { status: 529, message: 'Overloaded' } });
 *   ... run the code under test ...
 *   expect(server.requests[0]).toMatchObject({ system: '...', messages: [...] });
 *   await server.close();                           // in afterEach: also ends hanging streams
 *
 * Turns are streamed as the real API does: message_start, per block content_block_start /
 * content_block_delta (text_delta, input_json_delta) / content_block_stop, message_delta with
 * the stop reason and output usage, message_stop, with a ping after message_start. An empty
 * queue answers 500 saying so, so a test that makes an unexpected call fails loudly.
 */
export class FakeAnthropicServer extends FakeModelServer {
  constructor() {
    super(anthropicDialect);
  }
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function event(type: string, data: Record<string, unknown>): string {
  return sseFrame(JSON.stringify({ type, ...data }), type);
}

const anthropicDialect: ModelApiDialect = {
  name: 'fake-anthropic-server',
  path: '/v1/messages',
  baseUrlSuffix: '',

  turnFrames(turn: ScriptedTurn, request: Record<string, unknown>, turnNumber: number): string[] {
    const usage = usageOf(turn, request);
    const toolCalls = turn.toolCalls ?? [];
    const model = typeof request['model'] === 'string' ? request['model'] : 'claude-fake';
    const frames = [
      event('message_start', {
        message: {
          id: `msg_fake_${turnNumber}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          // The real API reports a token or so of output here; the final count is in message_delta.
          usage: { input_tokens: usage.input, output_tokens: 1 },
        },
      }),
      sseFrame(JSON.stringify({ type: 'ping' }), 'ping'),
    ];
    let index = 0;
    if (turn.text !== undefined && turn.text.length > 0) {
      frames.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const text of turn.text) {
        frames.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
      }
      frames.push(event('content_block_stop', { index }));
      index++;
    }
    for (const [callIndex, call] of toolCalls.entries()) {
      const id = call.id ?? `toolu_fake_${turnNumber}_${callIndex}`;
      frames.push(
        event('content_block_start', { index, content_block: { type: 'tool_use', id, name: call.name, input: {} } }),
      );
      // The real API opens every tool_use block with an empty partial_json.
      for (const partial_json of ['', ...call.argumentChunks]) {
        frames.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
      }
      frames.push(event('content_block_stop', { index }));
      index++;
    }
    frames.push(
      event('message_delta', {
        delta: {
          stop_reason: turn.stopReason ?? (toolCalls.length > 0 ? 'tool_use' : 'end_turn'),
          stop_sequence: null,
        },
        usage: { output_tokens: usage.output },
      }),
      event('message_stop', {}),
    );
    return frames;
  },

  streamErrorFrame(type: string, message: string): string {
    return event('error', { error: { type, message } });
  },

  malformedFrame(): string {
    return sseFrame('{"type": "content_block_delta", "index": 0, "delta": {', 'content_block_delta');
  },

  errorBody(status: number, message: string, type: string | undefined): unknown {
    return {
      type: 'error',
      error: { type: type ?? ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message },
      request_id: 'req_fake',
    };
  },
};
