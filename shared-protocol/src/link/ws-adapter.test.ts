import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { WsHooks, WsLike } from './ws-adapter.js';
import { wsAdapter, wsBytes } from './ws-adapter.js';

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;

/** The shape of a `ws` socket, recording what was asked of it (its listeners are never called). */
class FakeWs implements WsLike {
  readonly OPEN = OPEN;
  readonly CONNECTING = CONNECTING;
  readyState = OPEN;
  readonly written: Uint8Array[] = [];
  readonly callbacks: ((error?: Error) => void)[] = [];
  readonly closes: [number | undefined, string | undefined][] = [];
  terminated = 0;

  send(data: Uint8Array, options: { binary: boolean }, callback?: (error?: Error) => void): void {
    expect(options.binary).toBe(true);
    this.written.push(data);
    if (callback) this.callbacks.push(callback);
  }

  close(code?: number, reason?: string): void {
    this.closes.push([code, reason]);
  }

  terminate(): void {
    this.terminated++;
  }

  on(): this {
    return this;
  }
}

/** What an adapter's hooks heard. */
function recorder(onText: () => void = () => {}) {
  const heard = { messages: [] as Uint8Array[], texts: 0, errors: [] as string[], ends: [] as [number, string][] };
  let resolveEnd: (end: [number, string]) => void = () => {};
  const ended = new Promise<[number, string]>((resolve) => (resolveEnd = resolve));
  const hooks: WsHooks = {
    message: (bytes) => heard.messages.push(bytes),
    text: () => {
      heard.texts++;
      onText();
    },
    error: (error) => heard.errors.push(error.message),
    closed: (code, reason) => {
      heard.ends.push([code, reason]);
      resolveEnd([code, reason]);
    },
  };
  return { heard, hooks, ended };
}

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A `ws` server on a free loopback port, and a client connected to it. */
async function pair(options: { maxPayload?: number } = {}) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  const accepted = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${port}`, { maxPayload: options.maxPayload });
  await new Promise((resolve) => client.once('open', resolve));
  return { client, peer: await accepted };
}

const until = (test: () => boolean) =>
  new Promise<void>((resolve) => {
    const check = () => (test() ? resolve() : setTimeout(check, 5));
    check();
  });

describe('wsAdapter over a real ws socket', () => {
  it('hands binary messages over as plain Uint8Arrays, refuses text through its hook, and reports the end once', async () => {
    const { client, peer } = await pair();
    const { heard, hooks, ended } = recorder(() => peer.close(4004, 'binary only'));
    wsAdapter(peer, hooks);
    const clientClosed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
    client.send(Uint8Array.of(1, 2, 3));
    await until(() => heard.messages.length === 1);
    expect(Object.getPrototypeOf(heard.messages[0])).toBe(Uint8Array.prototype);
    expect([...heard.messages[0]!]).toEqual([1, 2, 3]);
    client.send('hello');
    expect(await clientClosed).toBe(4004);
    expect(await ended).toEqual([4004, 'binary only']);
    expect(heard.texts).toBe(1);
    expect(heard.messages).toHaveLength(1);
    expect(heard.ends).toHaveLength(1);
  });

  it('takes ArrayBuffers and fragments as well as Buffers', async () => {
    for (const binaryType of ['arraybuffer', 'fragments'] as const) {
      const { client, peer } = await pair();
      client.binaryType = binaryType;
      const { heard, hooks } = recorder();
      wsAdapter(client, hooks);
      peer.send(Uint8Array.of(7, 8));
      await until(() => heard.messages.length === 1);
      expect([...heard.messages[0]!]).toEqual([7, 8]);
      client.terminate();
    }
  });

  it('reports an error and the close that follows as one end, the first, and terminates the socket', async () => {
    const { client, peer } = await pair({ maxPayload: 16 });
    const { heard, hooks, ended } = recorder();
    const adapter = wsAdapter(client, {
      ...hooks,
      error: (error) => {
        hooks.error?.(error);
        adapter.ended(1006, error.message);
      },
    });
    peer.send(new Uint8Array(64));
    const [code, reason] = await ended;
    expect(code).toBe(1006);
    expect(reason).toMatch(/payload/i);
    await until(() => client.readyState === client.CLOSED);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard.errors).toHaveLength(1);
    expect(heard.ends).toHaveLength(1);
    expect(heard.messages).toHaveLength(0);
  });

  it('says done once a message is written, and at once for a socket that has closed', async () => {
    const { client, peer } = await pair();
    const received = new Promise<Uint8Array>((resolve) => client.once('message', resolve));
    const adapter = wsAdapter(peer, recorder().hooks);
    await new Promise<void>((resolve) => adapter.send(Uint8Array.of(9), resolve));
    expect([...(await received)]).toEqual([9]);
    adapter.close(1000, 'bye');
    await until(() => peer.readyState === peer.CLOSED);
    let done = 0;
    adapter.send(Uint8Array.of(10), () => done++);
    expect(done).toBe(0);
    await Promise.resolve();
    expect(done).toBe(1);
  });
});

describe('wsAdapter writing', () => {
  it('writes binary messages and says done when the socket has written each', () => {
    const ws = new FakeWs();
    const writer = wsAdapter(ws, recorder().hooks);
    let done = 0;
    writer.send(new Uint8Array([1, 2]), () => done++);
    expect(ws.written).toEqual([new Uint8Array([1, 2])]);
    expect(done).toBe(0);
    ws.callbacks[0]!(new Error('write failed'));
    expect(done).toBe(1);
  });

  it('does not write to a socket that is not open, and still says done, on the next microtask', async () => {
    const ws = new FakeWs();
    ws.readyState = CLOSING;
    let done = 0;
    wsAdapter(ws, recorder().hooks).send(new Uint8Array([1]), () => done++);
    expect(ws.written).toEqual([]);
    expect(done).toBe(0);
    await Promise.resolve();
    expect(done).toBe(1);
  });

  it('closes an open or opening socket, and leaves one already closing alone', () => {
    const ws = new FakeWs();
    const writer = wsAdapter(ws, recorder().hooks);
    writer.close(1000, 'bye');
    ws.readyState = CONNECTING;
    writer.close(1001, 'going');
    ws.readyState = CLOSING;
    writer.close(1002, 'again');
    expect(ws.closes).toEqual([
      [1000, 'bye'],
      [1001, 'going'],
    ]);
    writer.terminate();
    expect(ws.terminated).toBe(1);
  });

  it('reports the first end only', () => {
    const { heard, hooks } = recorder();
    const adapter = wsAdapter(new FakeWs(), hooks);
    adapter.ended(1006, 'error');
    adapter.ended(1000, 'closed');
    expect(heard.ends).toEqual([[1006, 'error']]);
  });
});

describe('wsBytes', () => {
  it('views a Uint8Array or an ArrayBuffer without copying, and joins fragments', () => {
    const backing = new Uint8Array([0, 1, 2, 3, 4]);
    const view = wsBytes(backing.subarray(1, 4));
    expect(view.buffer).toBe(backing.buffer);
    expect([...view]).toEqual([1, 2, 3]);
    const arrayBuffer = new ArrayBuffer(2);
    expect(wsBytes(arrayBuffer).buffer).toBe(arrayBuffer);
    expect([...wsBytes([Uint8Array.of(1), Uint8Array.of(), Uint8Array.of(2, 3)])]).toEqual([1, 2, 3]);
  });
});
