import type {
  BoxKeyPair,
  PairReply,
  PairRequestBody,
  PairingLink,
  Result,
  Scope,
  TetherEvent,
} from '@tether/shared-protocol';
import {
  DeviceClient,
  ProtocolErrorSchema,
  encodeChannelMessage,
  fail,
  fromBase64UrlExact,
  generateBoxKeyPair,
  ok,
  pairWithHost,
  parsePairingLink,
  sealCall,
  secureRandom,
  systemClock,
  webSocketConnect,
} from '@tether/shared-protocol';
import * as v from 'valibot';
import type { WebSocketConstructor } from '@tether/shared-protocol';
import type { ClientRequestArgs } from 'node:http';
import type { Socket } from 'node:net';
import { createConnection } from 'node:net';
import { WebSocket } from 'ws';
import type { TestHost } from './test-host.js';

export interface PairedDevice {
  keys: BoxKeyPair;
  reply: PairReply;
  hostBoxPublicKey: Uint8Array;
}

/** POSTs a sealed pair request for `link`; resolves with the HTTP status and body. */
export async function postPair(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${baseUrl}/rc/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

/** `POST /rc/pair` as pairWithHost wants it: the JSON of a 200, or the error the host gave. */
export function httpPairPost(
  baseUrl: string,
  headers: Record<string, string> = {},
): (body: PairRequestBody) => Promise<Result<unknown>> {
  return async (body) => {
    const response = await postPair(baseUrl, body, headers);
    if (response.status === 200) return ok(response.body);
    const error = v.safeParse(v.object({ error: ProtocolErrorSchema }), response.body);
    return error.success ? { ok: false, error: error.output.error } : fail('pair-failed', `HTTP ${response.status}`);
  };
}

/** Runs the device's side of pairing over HTTP with a new key; resolves with the key and the outcome. */
export function pairOverHttp(
  baseUrl: string,
  link: PairingLink,
  options: {
    label?: string;
    keys?: BoxKeyPair;
    onCode?: (code: string) => void;
    /** More request headers (an `Origin`, as a browser sets it). */
    headers?: Record<string, string>;
  } = {},
): { keys: BoxKeyPair; done: Promise<Result<PairReply>> } {
  const keys = options.keys ?? generateBoxKeyPair();
  const done = pairWithHost({
    link,
    devicePublicKey: keys.publicKey,
    label: options.label ?? 'Test phone',
    post: httpPairPost(baseUrl, options.headers),
    onCode: options.onCode ?? (() => undefined),
  });
  return { keys, done };
}

/** Pairs a device the way the app does, allowing it at the host (with `scopes`). */
export async function pairDevice(
  t: TestHost,
  options: { label?: string; scopes?: Scope[] } = {},
): Promise<PairedDevice> {
  const pairing = t.host.parts.gateway.pairing;
  const parsed = parsePairingLink(t.pairLink());
  if (!parsed.ok) throw new Error(parsed.error.message);
  const answered = new Promise<void>((resolve, reject) => {
    const poll = () => {
      const [request] = pairing.requests();
      if (!request) return setTimeout(poll, 5);
      const allowed = pairing.allow(request.id, options.scopes);
      if (allowed.ok) resolve();
      else reject(new Error(allowed.error.message));
    };
    poll();
  });
  const { keys, done } = pairOverHttp(t.url, parsed.value, { label: options.label ?? 'Test phone' });
  await answered;
  const reply = await done;
  if (!reply.ok) throw new Error(`pairing failed: ${reply.error.code}: ${reply.error.message}`);
  return { keys, reply: reply.value, hostBoxPublicKey: fromBase64UrlExact(reply.value.hostBoxPublicKey, 32)! };
}

/** A DeviceClient for a paired device over a real WebSocket, with its events collected. */
export function connectDevice(t: TestHost, device: PairedDevice, options: { rpcTimeoutMs?: number } = {}) {
  // Every socket the client opens, newest last, with the TCP stream under it (tests pause one to
  // play a slow reader).
  const sockets: WebSocket[] = [];
  const streams: Socket[] = [];
  class TrackedWebSocket extends WebSocket {
    constructor(url: string) {
      super(url, {
        createConnection: (options: ClientRequestArgs) => {
          const stream = createConnection({
            host: options.hostname ?? options.host ?? '127.0.0.1',
            port: Number(options.port),
          });
          streams.push(stream);
          return stream;
        },
      });
      sockets.push(this);
    }
  }
  const client = new DeviceClient({
    deviceId: device.reply.deviceId,
    deviceKeys: device.keys,
    hostBoxPublicKey: device.hostBoxPublicKey,
    connect: webSocketConnect(
      `${t.url.replace(/^http/, 'ws')}/rc/ws`,
      TrackedWebSocket as unknown as WebSocketConstructor,
    ),
    backoff: { baseMs: 20, maxMs: 200 },
    ...(options.rpcTimeoutMs !== undefined ? { rpcTimeoutMs: options.rpcTimeoutMs } : {}),
  });
  const events: TetherEvent[] = [];
  client.onEvent((e) => events.push(e));
  client.start();
  return { client, events, sockets, streams };
}

/** Stops reading from the client's newest TCP stream, so the host's queue for it grows. */
export function pauseReading(streams: Socket[]): { resume(): void } {
  const stream = streams[streams.length - 1]!;
  stream.pause();
  return { resume: () => stream.resume() };
}

export function waitForState(client: DeviceClient, name: string, timeoutMs = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (client.state.name === name) return resolve();
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`client stayed ${client.state.name}, expected ${name}`));
    }, timeoutMs);
    const stop = client.onState((state) => {
      if (state.name !== name) return;
      clearTimeout(timer);
      stop();
      resolve();
    });
  });
}

export async function until<T>(check: () => T | undefined, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A one-shot call from this device (as a notification's button sends one), sealed now. */
export function sealDeviceCall(device: PairedDevice, method: string, params: unknown, id = 1) {
  return sealCall(
    {
      deviceId: device.reply.deviceId,
      deviceKeys: device.keys,
      hostBoxPublicKey: device.hostBoxPublicKey,
      clock: systemClock,
      random: secureRandom,
    },
    encodeChannelMessage({ t: 'req', id, method, params }),
  );
}
