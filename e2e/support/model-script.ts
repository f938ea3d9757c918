import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What a stand-in model says in one reply, in order: text (streamed in the pieces given), a call
 * of one of the tools the request offered, or a pause. `hold` keeps the reply open after what came
 * before it until the request is closed by the caller (an interrupt, the agent killed): a model
 * still streaming.
 */
export type ModelStep =
  { text: string | string[] } | { tool: string; input: unknown } | { pauseMs: number } | { hold: true };

/** One request the stand-in was sent: where, and its JSON body. */
export interface ModelCall {
  path: string;
  body: Record<string, unknown>;
  /** Milliseconds (performance.now) when it arrived. */
  at: number;
  /** Milliseconds since the epoch when it arrived: to compare with a session event's `at`. */
  wall: number;
  /** Whether it was a turn of the conversation (it offered tools), as opposed to a side request. */
  turn: boolean;
}

/**
 * A scripted model behind a wire format: a queue of replies, taken one per turn of the
 * conversation (a request that offers tools), and a record of every request. Side requests (a
 * title, a token count) get a short fixed answer and take nothing from the queue; a turn with the
 * queue empty says so in its text, so a test that forgot a step fails on what it reads.
 */
export class ModelScript {
  readonly calls: ModelCall[] = [];
  private readonly queue: ModelStep[][] = [];
  private readonly waiters: { predicate: (call: ModelCall) => boolean; resolve: (call: ModelCall) => void }[] = [];

  /** Adds replies, one per coming turn. */
  script(...replies: ModelStep[][]): void {
    this.queue.push(...replies);
  }

  /** Replies still waiting for their turn. */
  get pending(): number {
    return this.queue.length;
  }

  /** Drops replies not yet taken (a test that ended early). */
  clear(): void {
    this.queue.length = 0;
  }

  /** The turns of the conversation so far. */
  turns(): ModelCall[] {
    return this.calls.filter((c) => c.turn);
  }

  record(request: Omit<ModelCall, 'wall'>): void {
    const call = { ...request, wall: Date.now() };
    this.calls.push(call);
    for (const w of [...this.waiters]) {
      if (w.predicate(call)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(call);
      }
    }
  }

  /** The next reply for a turn. */
  next(): ModelStep[] {
    return this.queue.shift() ?? [{ text: '(the stand-in model has no more replies scripted)' }];
  }

  /** Waits for a request (already made, or to come) matching `predicate`. */
  waitFor(predicate: (call: ModelCall) => boolean, timeoutMs = 30_000): Promise<ModelCall> {
    const found = this.calls.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the stand-in model was not sent the expected request')),
        timeoutMs,
      );
      this.waiters.push({ predicate, resolve: (call) => (clearTimeout(timer), resolve(call)) });
    });
  }
}

/** Steps' pieces of text, one string per piece. */
export function pieces(step: { text: string | string[] }): string[] {
  return typeof step.text === 'string' ? [step.text] : step.text;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves when the response is closed by either side (the reply ended, or the caller went away). */
export function closed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.writableEnded || res.destroyed) resolve();
    else res.once('close', () => resolve());
  });
}

/** Reads a request's body as JSON (an empty or broken body reads as `{}`). */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A loopback HTTP server (127.0.0.1, a free port), closed with every connection it holds. */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ server: Server; origin: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
