import type { ServerResponse } from 'node:http';
import type { ModelStep } from './model-script.js';
import { closed, listen, ModelScript, pieces, readJson, sleep } from './model-script.js';

/**
 * A loopback stand-in for the OpenAI Responses API (`POST /v1/responses`, streamed), for agents
 * that call it (Codex with a model provider whose `wire_api` is `responses`). It streams what the
 * real API does and what Codex reads: response.created, then per output item
 * response.output_item.added, response.output_text.delta for a message's text, and
 * response.output_item.done with the whole item (a `message`, a `function_call` for a function
 * tool, a `custom_tool_call` for a freeform tool such as `apply_patch`), then response.completed
 * with usage. A tool's kind is read from the request's own tool list. What the model says is
 * scripted per test (`script`); every request is recorded.
 */
export interface ResponsesStandIn {
  /** For a provider's `base_url`: `http://127.0.0.1:PORT/v1`. */
  url: string;
  model: ModelScript;
  /** The output of every tool call the agent sent back to the model, in order. */
  toolResults(): string[];
  close(): Promise<void>;
}

let ids = 0;
const id = (prefix: string) => `${prefix}_standin${String(++ids).padStart(6, '0')}`;

export async function startResponsesStandIn(): Promise<ResponsesStandIn> {
  const model = new ModelScript();
  const http = await listen(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [] }));
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/responses') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } }));
      return;
    }
    const body = await readJson(req);
    const turn = Array.isArray(body.tools) && body.tools.length > 0;
    model.record({ path, body, at: performance.now(), turn });
    await stream(res, body, turn ? model.next() : [{ text: 'Stand-in.' }]);
  });
  return {
    url: `${http.origin}/v1`,
    model,
    toolResults: () => {
      const seen = new Set<string>();
      const out: string[] = [];
      for (const call of model.calls) {
        for (const item of inputItems(call.body)) {
          if (item.type !== 'function_call_output' && item.type !== 'custom_tool_call_output') continue;
          const key = String(item.call_id);
          if (seen.has(key)) continue;
          seen.add(key);
          out.push(outputText(item.output));
        }
      }
      return out;
    },
    close: http.close,
  };
}

type Item = Record<string, unknown>;

async function stream(res: ServerResponse, body: Record<string, unknown>, steps: ModelStep[]): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': id('req') });
  const gone = closed(res);
  let sequence = 0;
  const send = (data: Record<string, unknown>) => {
    if (!res.destroyed)
      res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence++ })}\n\n`);
  };
  const responseId = id('resp');
  const created = Math.floor(Date.now() / 1000);
  const response = (status: string, output: Item[]) => ({
    id: responseId,
    object: 'response',
    created_at: created,
    status,
    model: body.model,
    output,
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: [],
  });
  send({ type: 'response.created', response: response('in_progress', []) });
  send({ type: 'response.in_progress', response: response('in_progress', []) });
  const tools = Array.isArray(body.tools) ? (body.tools as { type?: string; name?: string }[]) : [];
  const output: Item[] = [];
  for (const step of steps) {
    if ('pauseMs' in step) {
      await sleep(step.pauseMs);
      continue;
    }
    if ('hold' in step) {
      await gone;
      return;
    }
    const index = output.length;
    if ('text' in step) {
      const itemId = id('msg');
      send({
        type: 'response.output_item.added',
        output_index: index,
        item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      });
      send({
        type: 'response.content_part.added',
        item_id: itemId,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
      for (const piece of pieces(step)) {
        send({
          type: 'response.output_text.delta',
          item_id: itemId,
          output_index: index,
          content_index: 0,
          delta: piece,
        });
      }
      const text = pieces(step).join('');
      send({ type: 'response.output_text.done', item_id: itemId, output_index: index, content_index: 0, text });
      const part = { type: 'output_text', text, annotations: [] };
      send({ type: 'response.content_part.done', item_id: itemId, output_index: index, content_index: 0, part });
      const item = { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [part] };
      send({ type: 'response.output_item.done', output_index: index, item });
      output.push(item);
      continue;
    }
    // A freeform ("custom") tool takes its input as text; a function tool as JSON arguments.
    const custom = tools.find((t) => t.name === step.tool)?.type === 'custom';
    const callId = id('call');
    const itemId = id(custom ? 'ctc' : 'fc');
    const item: Item = custom
      ? {
          id: itemId,
          type: 'custom_tool_call',
          status: 'completed',
          call_id: callId,
          name: step.tool,
          input: String(step.input),
        }
      : {
          id: itemId,
          type: 'function_call',
          status: 'completed',
          call_id: callId,
          name: step.tool,
          arguments: JSON.stringify(step.input),
        };
    send({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress' } });
    send({ type: 'response.output_item.done', output_index: index, item });
    output.push(item);
  }
  send({
    type: 'response.completed',
    response: {
      ...response('completed', output),
      usage: {
        input_tokens: 25,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 30,
      },
    },
  });
  res.end();
}

function inputItems(body: Record<string, unknown>): Item[] {
  return Array.isArray(body.input) ? (body.input as Item[]) : [];
}

/** A tool output as text: a string, or content items' text. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output))
    return output.map((o) => (typeof (o as Item).text === 'string' ? String((o as Item).text) : '')).join('');
  if (typeof output === 'object' && output !== null && 'content' in output) return outputText((output as Item).content);
  return JSON.stringify(output);
}
