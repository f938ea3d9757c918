import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback OpenAI-compatible chat server, for tests that run the real `tether start`. */
export interface FakeModel {
  url: string;
  close(): Promise<void>;
}

/** Writes one streamed chunk: a delta, and the finish reason on the last. */
export type ChunkWriter = (delta: Record<string, unknown>, finish: string | null) => void;

/**
 * Serves `POST …/chat/completions` as a stream: `reply` gets the request's messages and writes
 * the answer's chunks; the stream is ended after it.
 */
export async function startChatServer(
  reply: (messages: { role: string }[], write: ChunkWriter) => void | Promise<void>,
): Promise<FakeModel> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as { messages: { role: string }[] };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const replied = reply(request.messages, (delta, finish) =>
        res.write(
          `data: ${JSON.stringify({
            id: 'chatcmpl-fake',
            object: 'chat.completion.chunk',
            created: 1_700_000_000,
            model: 'fake',
            choices: [{ index: 0, delta, finish_reason: finish }],
          })}\n\n`,
        ),
      );
      void Promise.resolve(replied).then(() => res.end('data: [DONE]\n\n'));
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

/**
 * What a model fed a hostile file would stream, for `--model openai-compatible:fake@<url>`: asked
 * afresh, a shell tool call with `command`; after a tool result, a short reply.
 */
export function startFakeModel(command: string): Promise<FakeModel> {
  return startChatServer((messages, write) => {
    if (messages.at(-1)?.role === 'tool') {
      write({ role: 'assistant', content: 'Done.' }, null);
      write({}, 'stop');
      return;
    }
    write(
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
    );
    write({}, 'tool_calls');
  });
}
