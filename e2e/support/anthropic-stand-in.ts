import type { ServerResponse } from 'node:http';
import type { ModelStep } from './model-script.js';
import { closed, listen, ModelScript, pieces, readJson, sleep } from './model-script.js';

/**
 * A loopback stand-in for the Anthropic Messages API, for agents that call it (Claude Code through
 * `ANTHROPIC_BASE_URL`): `POST /v1/messages` streamed as server-sent events the way the real API
 * streams them (message_start, ping, content_block_start / _delta / _stop for text and tool_use
 * with input_json_delta, message_delta with the stop reason and usage, message_stop), a plain JSON
 * message when `stream` is off, and `POST /v1/messages/count_tokens`. What the model says is
 * scripted per test (`script`); every request is recorded.
 */
export interface AnthropicStandIn {
  /** For `ANTHROPIC_BASE_URL`: `http://127.0.0.1:PORT`. */
  url: string;
  model: ModelScript;
  /** The text of every tool result the agent sent back to the model, in order. */
  toolResults(): string[];
  close(): Promise<void>;
}

let ids = 0;
const id = (prefix: string) => `${prefix}_standin${String(++ids).padStart(6, '0')}`;

export async function startAnthropicStandIn(): Promise<AnthropicStandIn> {
  const model = new ModelScript();
  const http = await listen(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(notFound());
      return;
    }
    const body = await readJson(req);
    if (path === '/v1/messages/count_tokens') {
      model.record({ path, body, at: performance.now(), turn: false });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: Math.ceil(JSON.stringify(body).length / 4) }));
      return;
    }
    if (path !== '/v1/messages') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(notFound());
      return;
    }
    const turn = Array.isArray(body.tools) && body.tools.length > 0;
    model.record({ path, body, at: performance.now(), turn });
    const steps = turn ? model.next() : [{ text: 'Stand-in.' }];
    if (body.stream === true) await stream(res, String(body.model), steps);
    else reply(res, String(body.model), steps);
  });
  return {
    url: http.origin,
    model,
    toolResults: () => model.calls.flatMap((call) => toolResultsOf(call.body)),
    close: http.close,
  };
}

function notFound(): string {
  return JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'Not found' } });
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

async function stream(res: ServerResponse, modelName: string, steps: ModelStep[]): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': id('req'),
  });
  const gone = closed(res);
  const send = (event: string, data: unknown) => {
    if (!res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const usage = { input_tokens: 25, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
  send('message_start', {
    type: 'message_start',
    message: {
      id: id('msg'),
      type: 'message',
      role: 'assistant',
      model: modelName,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  send('ping', { type: 'ping' });
  let index = 0;
  let usedTool = false;
  let outputTokens = 0;
  for (const step of steps) {
    if ('pauseMs' in step) {
      await sleep(step.pauseMs);
      continue;
    }
    if ('hold' in step) {
      await gone;
      return;
    }
    if ('text' in step) {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of pieces(step)) {
        send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
        outputTokens += Math.ceil(piece.length / 4);
      }
    } else {
      usedTool = true;
      const json = JSON.stringify(step.input);
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: id('toolu'), name: step.tool, input: {} },
      });
      // The real API sends the input in pieces, split anywhere.
      const half = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) {
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: part },
        });
      }
      outputTokens += Math.ceil(json.length / 4);
    }
    send('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: usedTool ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: Math.max(1, outputTokens) },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function reply(res: ServerResponse, modelName: string, steps: ModelStep[]): void {
  const content: Block[] = steps.flatMap((step): Block[] => {
    if ('text' in step) return [{ type: 'text', text: pieces(step).join('') }];
    if ('tool' in step) return [{ type: 'tool_use', id: id('toolu'), name: step.tool, input: step.input }];
    return [];
  });
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': id('req') });
  res.end(
    JSON.stringify({
      id: id('msg'),
      type: 'message',
      role: 'assistant',
      model: modelName,
      content,
      stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 25, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
    }),
  );
}

/** The text of the tool results in a request's messages (a result's content: a string or blocks). */
function toolResultsOf(body: Record<string, unknown>): string[] {
  const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
  const last = messages.at(-1);
  if (!last || !Array.isArray(last.content)) return [];
  return (last.content as { type?: string; content?: unknown }[])
    .filter((block) => block.type === 'tool_result')
    .map((block) =>
      typeof block.content === 'string'
        ? block.content
        : Array.isArray(block.content)
          ? (block.content as { type?: string; text?: string }[])
              .map((b) => (b.type === 'text' ? (b.text ?? '') : ''))
              .join('')
          : '',
    );
}
