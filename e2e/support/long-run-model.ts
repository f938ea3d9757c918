import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback OpenAI-compatible model that makes a long run: `steps` turns, each a line of text and
 * a tool call (`write_file` for the first `writes` steps, then `read_file`), then a last reply.
 * The step is counted from the tool results in the request, so a resumed run goes on where it was.
 */
export interface LongRunModel {
  url: string;
  close(): Promise<void>;
}

export async function startLongRunModel(steps: number, writes = 0): Promise<LongRunModel> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as { messages: { role: string }[] };
      const step = request.messages.filter((m) => m.role === 'tool').length;
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({
          id: `chatcmpl-long-${step}`,
          object: 'chat.completion.chunk',
          created: 1_700_000_000,
          model: 'fake',
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (step >= steps) {
        res.write(chunk({ role: 'assistant', content: `All ${steps} steps done. THE END.` }, null));
        res.write(chunk({}, 'stop'));
      } else {
        const call =
          step < writes
            ? {
                name: 'write_file',
                arguments: JSON.stringify({ path: `out/step-${step}.txt`, content: `step ${step}\n` }),
              }
            : { name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) };
        res.write(chunk({ role: 'assistant', content: `Step ${step + 1} of ${steps}.` }, null));
        res.write(chunk({ tool_calls: [{ index: 0, id: `call_${step}`, type: 'function', function: call }] }, null));
        res.write(chunk({}, 'tool_calls'));
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
