import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import {
  DEFAULT_PARTIAL_TURN,
  type ScriptedHttpError,
  type ScriptedResponse,
  type ScriptedTurn,
} from './scripted-response.js';
import { delay, startEventStream, writeFrame } from './sse.js';

/** How one model API looks on the wire; the Anthropic and OpenAI fakes each supply one. */
export interface ModelApiDialect {
  /** Names the fake in the error it answers when nothing was scripted. */
  readonly name: string;
  /** The path the SDK posts a turn to, e.g. `/v1/messages`. */
  readonly path: string;
  /** Appended to `http://127.0.0.1:<port>` to give the base URL the SDK is configured with. */
  readonly baseUrlSuffix: string;
  /** Every SSE frame of a turn, in order: `cut`/`truncate` count `afterEvents` in these frames. */
  turnFrames(turn: ScriptedTurn, request: Record<string, unknown>, turnNumber: number): string[];
  streamErrorFrame(type: string, message: string): string;
  /** An event the SDK will try to parse, whose data is not JSON. */
  malformedFrame(): string;
  /** The API's error body for an HTTP error. */
  errorBody(status: number, message: string, type: string | undefined): unknown;
}

/**
 * A real HTTP server on 127.0.0.1 that answers each request with the next scripted response,
 * streamed exactly as the API would. Subclassed per API; see fake-anthropic-server.ts and
 * fake-openai-server.ts for usage.
 */
export class FakeModelServer {
  /** The parsed JSON body of every request to the API path, in arrival order. */
  readonly requests: Record<string, unknown>[] = [];
  /** The headers of each request, same order as `requests`. */
  readonly requestHeaders: IncomingHttpHeaders[] = [];
  /** Responses closed before they finished: the client aborted, or a scripted cut. */
  abandonedResponses = 0;

  private readonly queue: ScriptedResponse[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  private readonly server: Server;

  constructor(private readonly dialect: ModelApiDialect) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => res.destroy());
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Listens on a free port of 127.0.0.1 and returns the base URL to give the SDK. */
  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('fake server has no TCP address');
    return `http://127.0.0.1:${address.port}${this.dialect.baseUrlSuffix}`;
  }

  /** Adds responses to the queue; each request takes the next one. */
  enqueue(...responses: ScriptedResponse[]): void {
    this.queue.push(...responses);
  }

  /** Scripted responses not yet taken by a request. */
  get pending(): number {
    return this.queue.length;
  }

  /** Resolves once `count` requests in total have arrived (e.g. to abort while a `hang` is open). */
  waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Destroys every open connection (hanging streams included) and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method !== 'POST' || path !== this.dialect.path) {
      return this.sendError(res, { error: { status: 404, message: `${this.dialect.name}: no route ${path}` } });
    }
    const body = parseObject(text);
    if (body === undefined) {
      return this.sendError(res, {
        error: { status: 400, message: `${this.dialect.name}: body is not a JSON object` },
      });
    }
    this.requests.push(body);
    this.requestHeaders.push(req.headers);
    this.wakeWaiters();
    const turnNumber = this.requests.length;
    res.on('close', () => {
      if (!res.writableFinished) this.abandonedResponses++;
    });

    const response = this.queue.shift();
    if (response === undefined) {
      const message = `${this.dialect.name} had no scripted response for request #${turnNumber}; call enqueue() first`;
      return this.sendError(res, { error: { status: 500, message } });
    }
    if ('error' in response) return this.sendError(res, response);
    if ('hang' in response) return startEventStream(res);
    if ('cut' in response) {
      const frames = this.frames(response.cut.turn, body, turnNumber).slice(0, response.cut.afterEvents);
      await this.writeFrames(res, frames, 0);
      res.socket?.destroy();
      return;
    }
    if ('truncate' in response) {
      const frames = this.frames(response.truncate.turn, body, turnNumber).slice(0, response.truncate.afterEvents);
      return this.endWith(res, frames);
    }
    if ('streamError' in response) {
      const { type, message, afterEvents = 0, turn } = response.streamError;
      const frames = this.frames(turn, body, turnNumber).slice(0, afterEvents);
      return this.endWith(res, [...frames, this.dialect.streamErrorFrame(type, message)]);
    }
    if ('malformed' in response) {
      const { afterEvents = 0, turn } = response.malformed;
      const frames = this.frames(turn, body, turnNumber).slice(0, afterEvents);
      return this.endWith(res, [...frames, this.dialect.malformedFrame()]);
    }
    startEventStream(res);
    if (await this.writeFrames(res, this.dialect.turnFrames(response, body, turnNumber), response.chunkDelayMs ?? 0)) {
      res.end();
    }
  }

  private frames(turn: ScriptedTurn | undefined, body: Record<string, unknown>, turnNumber: number): string[] {
    return this.dialect.turnFrames(turn ?? DEFAULT_PARTIAL_TURN, body, turnNumber);
  }

  private async endWith(res: ServerResponse, frames: string[]): Promise<void> {
    startEventStream(res);
    if (await this.writeFrames(res, frames, 0)) res.end();
  }

  /** Returns false when the client went away part-way. */
  private async writeFrames(res: ServerResponse, frames: string[], delayMs: number): Promise<boolean> {
    if (!res.headersSent) startEventStream(res);
    for (const [index, frame] of frames.entries()) {
      if (index > 0 && delayMs > 0) await delay(delayMs);
      if (!(await writeFrame(res, frame))) return false;
    }
    return true;
  }

  private sendError(res: ServerResponse, scripted: ScriptedHttpError): void {
    const { status, message, type, retryAfter } = scripted.error;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
    res.writeHead(status, headers);
    res.end(JSON.stringify(this.dialect.errorBody(status, message, type)));
  }

  private wakeWaiters(): void {
    for (const waiter of [...this.waiters]) {
      if (this.requests.length < waiter.count) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
