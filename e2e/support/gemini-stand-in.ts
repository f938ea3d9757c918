import type { ServerResponse } from 'node:http';
import type { ModelStep } from './model-script.js';
import { closed, listen, ModelScript, pieces, readJson, sleep } from './model-script.js';

/**
 * A loopback stand-in for the Gemini API, for Gemini CLI through `GOOGLE_GEMINI_BASE_URL`:
 * `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` streamed as the real API streams it
 * (one `data:` chunk of candidates per piece of text or function call, the last with its
 * finishReason and usageMetadata), `:generateContent` for the CLI's side requests (it routes each
 * prompt with a small model first; answered with an empty JSON object) and `:countTokens`. What
 * the model says is scripted per test (`script`); every request is recorded.
 */
export interface GeminiStandIn {
  /** For `GOOGLE_GEMINI_BASE_URL`: `http://127.0.0.1:PORT`. */
  url: string;
  model: ModelScript;
  /** The output of every function call the agent sent back to the model, in order. */
  toolResults(): string[];
  close(): Promise<void>;
}

export async function startGeminiStandIn(): Promise<GeminiStandIn> {
  const model = new ModelScript();
  const http = await listen(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const body = await readJson(req);
    const json = (value: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.method !== 'POST' || !path.startsWith('/v1beta/models/')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 404, message: 'not found', status: 'NOT_FOUND' } }));
      return;
    }
    if (path.endsWith(':countTokens')) {
      model.record({ path, body, at: performance.now(), turn: false });
      json({ totalTokens: Math.ceil(JSON.stringify(body).length / 4) });
      return;
    }
    if (path.endsWith(':generateContent')) {
      model.record({ path, body, at: performance.now(), turn: false });
      json({ candidates: [{ content: { parts: [{ text: '{}' }], role: 'model' }, finishReason: 'STOP', index: 0 }] });
      return;
    }
    const turn = Array.isArray(body.tools) && body.tools.length > 0;
    model.record({ path, body, at: performance.now(), turn });
    await stream(res, turn ? model.next() : [{ text: 'Stand-in.' }]);
  });
  return {
    url: http.origin,
    model,
    toolResults: () => {
      const seen = new Set<string>();
      const out: string[] = [];
      for (const call of model.turns()) {
        const contents = Array.isArray(call.body.contents) ? (call.body.contents as { parts?: unknown[] }[]) : [];
        for (const content of contents) {
          for (const part of content.parts ?? []) {
            const response = (part as { functionResponse?: { id?: string; name?: string; response?: unknown } })
              .functionResponse;
            if (!response) continue;
            const text = JSON.stringify(response.response);
            if (seen.has(text)) continue;
            seen.add(text);
            out.push(text);
          }
        }
      }
      return out;
    },
    close: http.close,
  };
}

async function stream(res: ServerResponse, steps: ModelStep[]): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const gone = closed(res);
  const chunk = (parts: unknown[], last: boolean) => {
    if (res.destroyed) return;
    const candidate = { content: { parts, role: 'model' }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) };
    const usage = last ? { usageMetadata: { promptTokenCount: 25, candidatesTokenCount: 5, totalTokenCount: 30 } } : {};
    res.write(`data: ${JSON.stringify({ candidates: [candidate], ...usage, modelVersion: 'stand-in' })}\r\n\r\n`);
  };
  const parts: unknown[][] = [];
  for (const step of steps) {
    if ('pauseMs' in step) {
      await sleep(step.pauseMs);
      continue;
    }
    if ('hold' in step) {
      for (const p of parts.splice(0)) chunk(p, false);
      await gone;
      return;
    }
    if ('text' in step) for (const piece of pieces(step)) parts.push([{ text: piece }]);
    else parts.push([{ functionCall: { name: step.tool, args: step.input } }]);
  }
  // Every piece is its own chunk; the last one carries the finish reason.
  parts.forEach((p, i) => chunk(p, i === parts.length - 1));
  if (parts.length === 0) chunk([{ text: '' }], true);
  res.end();
}
