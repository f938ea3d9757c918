import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for an OpenAI-compatible chat server, for tests that run the real `tether
 * start` with `--model openai-compatible:fake@<url>`. It streams what a model fed a hostile file
 * would: asked afresh, a shell tool call with `command`; after a tool result, a short reply.
 */
export interface FakeModel {
  url: string;
  close(): Promise<void>;
}

export async function startFakeModel(command: string): Promise<FakeModel> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as { messages: { role: string }[] };
      const afterTool = request.messages.at(-1)?.role === 'tool';
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({
          id: 'chatcmpl-fake',
          object: 'chat.completion.chunk',
          created: 1_700_000_000,
          model: 'fake',
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (afterTool) {
        res.write(chunk({ role: 'assistant', content: 'Done.' }, null));
        res.write(chunk({}, 'stop'));
      } else {
        res.write(
          chunk(
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  index: 0,
                  id: 'call_fake_1',
                  type: 'function',
                  function: { name: 'shell', arguments: JSON.stringify({ command }) },
                },
              ],
            },
            null,
          ),
        );
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
