import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { WsPort, rawSocket, setParserLimit } from './ws-port.js';

describe('setParserLimit', () => {
  it("caps what ws's parser accepts on a live socket, before the message is buffered", async () => {
    const server = createServer();
    const wss = new WebSocketServer({ server, maxPayload: 1024 * 1024 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    await new Promise((resolve) => client.once('open', resolve));
    const ws = await accepted;
    // The field this relies on is not ws's API: if an update moves it, this fails.
    expect(setParserLimit(ws, 100)).toBe(true);
    const messages: number[] = [];
    const errors: string[] = [];
    ws.on('message', (data: Buffer) => messages.push(data.length));
    ws.on('error', (error: Error & { code?: string }) => errors.push(error.code ?? ''));
    const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
    client.send(new Uint8Array(50));
    client.send(new Uint8Array(5000));
    expect(await closed).toBe(1009);
    expect(messages).toEqual([50]);
    expect(errors).toEqual(['WS_ERR_UNSUPPORTED_MESSAGE_LENGTH']);
    wss.close();
    server.close();
  });
});

describe('WsPort.send', () => {
  it('writes the messages of one tick together, in order, and uncorks before the tick ends', async () => {
    const server = createServer();
    const wss = new WebSocketServer({ server });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    await new Promise((resolve) => client.once('open', resolve));
    const ws = await accepted;
    // The field this relies on is not ws's API: if an update moves it, this fails.
    const socket = rawSocket(ws);
    expect(socket).toBeDefined();
    const received: number[] = [];
    const all = new Promise<void>((resolve) =>
      client.on('message', (data: Buffer) => {
        received.push(data[0]!);
        if (received.length === 3) resolve();
      }),
    );
    const relayPort = new WsPort(ws, '127.0.0.1');
    const written: number[] = [];
    for (const n of [1, 2, 3]) relayPort.send(Uint8Array.of(n), () => written.push(n));
    expect(socket!.writableCorked).toBe(1);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(socket!.writableCorked).toBe(0);
    await all;
    expect(received).toEqual([1, 2, 3]);
    expect(written).toEqual([1, 2, 3]);
    // The next tick corks again, on its own.
    relayPort.send(Uint8Array.of(4), () => {});
    expect(socket!.writableCorked).toBe(1);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(socket!.writableCorked).toBe(0);
    client.close();
    wss.close();
    server.close();
  });
});
