// The viewers of `npm run bench -- share`, in a process of their own (as browsers elsewhere would be):
// COUNT sealed clients through one share link, each from one of a few loopback addresses (the host
// lets 16 viewers in from an address), following the link's session. Told over IPC when to report,
// it answers with how many are open, the last sequence number each holds, and how long events took
// from the host's append (its `at`, in ms) to each viewer.
import type { SessionEvent, WebSocketConstructor } from '@tether/shared-protocol';
import {
  DeviceClient,
  isSessionEvent,
  parseShareLink,
  viewerIdentity,
  webSocketConnect,
} from '@tether/shared-protocol';
import type { ClientOptions } from 'ws';
import { WebSocket } from 'ws';

const [url, countText] = process.argv.slice(2);
const count = Number(countText);
const parsed = parseShareLink(url ?? '');
if (!parsed.ok || !Number.isInteger(count)) throw new Error('usage: share-viewers.ts URL COUNT');
const link = parsed.value;
/** Viewers per loopback address: under the host's 16. */
const PER_ADDRESS = 10;

function socketFrom(localAddress: string): WebSocketConstructor {
  class FromAddress extends WebSocket {
    constructor(address: string, options?: ClientOptions) {
      super(address, { ...options, localAddress });
    }
  }
  return FromAddress as unknown as WebSocketConstructor;
}

const delays: number[] = [];
const clients = Array.from({ length: count }, (_, i) => {
  const client = new DeviceClient({
    ...viewerIdentity(link),
    connect: webSocketConnect(
      `${link.base.replace(/^http/, 'ws')}/rc/ws`,
      socketFrom(`127.0.1.${1 + Math.floor(i / PER_ADDRESS)}`),
    ),
    backoff: { baseMs: 50, maxMs: 500 },
  });
  client.onEvent((event) => {
    if (isSessionEvent(event) && event.type === 'notice') delays.push(Date.now() - (event as SessionEvent).at);
  });
  return client;
});

// A few at a time: the host keeps a small pool for connections still in their handshake.
for (let i = 0; i < clients.length; i += 8) {
  const wave = clients.slice(i, i + 8);
  for (const client of wave) {
    client.watch(link.sessionId, 0);
    client.start();
  }
  await Promise.all(
    wave.map(
      (client) =>
        new Promise<void>((resolve) => {
          if (client.state.name === 'open') return resolve();
          const stop = client.onState((s) => s.name === 'open' && (stop(), resolve()));
        }),
    ),
  );
}
process.send?.({ t: 'ready', open: clients.filter((c) => c.state.name === 'open').length });

process.on('message', (message: { t: string }) => {
  if (message.t === 'report') {
    process.send?.({
      t: 'report',
      open: clients.filter((c) => c.state.name === 'open').length,
      lastSeqs: clients.map((c) => c.lastSeq(link.sessionId) ?? 0),
      delays,
    });
  } else if (message.t === 'stop') {
    for (const client of clients) client.stop();
    setTimeout(() => process.exit(0), 100);
  }
});
