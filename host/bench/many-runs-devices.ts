// The devices of `npm run bench -- many-runs`, in a process of their own (as phones elsewhere would
// be, so that the host's CPU figure is the host's alone). Told over IPC which paired devices to be
// and which sessions each follows, it connects them all, answers "ready", and records for every
// event it receives how long it took from the host's append (the event's `at`) to here, decrypted,
// in ms, keyed by the label given with the session. "heard" answers how many (device, session)
// pairs have had no event yet; "count", how many delays each label holds; "report", the delays
// (forgotten then); "stop" closes them all.
import type { SessionEvent, WebSocketConstructor } from '@tether/shared-protocol';
import { DeviceClient, isSessionEvent, webSocketConnect } from '@tether/shared-protocol';
import { WebSocket } from 'ws';
import { waitForState } from '../test/support/remote-device.js';

/** One paired device: its keys and the host's, base64, and the sessions it follows. */
export interface BenchDeviceSpec {
  deviceId: string;
  publicKey: string;
  secretKey: string;
  hostBoxPublicKey: string;
  /** Each session followed, from its last sequence number at the start, and which figure its delays count towards. */
  sessions: { id: string; after: number; label: string }[];
}

const bytes = (b64: string) => new Uint8Array(Buffer.from(b64, 'base64'));
const delays = new Map<string, number[]>();
const clients: DeviceClient[] = [];
const unheard = new Set<string>();

async function connect(url: string, specs: BenchDeviceSpec[]): Promise<void> {
  for (const spec of specs) {
    const client = new DeviceClient({
      deviceId: spec.deviceId,
      deviceKeys: { publicKey: bytes(spec.publicKey), secretKey: bytes(spec.secretKey) },
      hostBoxPublicKey: bytes(spec.hostBoxPublicKey),
      connect: webSocketConnect(`${url.replace(/^http/, 'ws')}/rc/ws`, WebSocket as unknown as WebSocketConstructor),
      backoff: { baseMs: 20, maxMs: 200 },
    });
    const labels = new Map(spec.sessions.map((s) => [s.id, s.label]));
    for (const { id } of spec.sessions) unheard.add(`${spec.deviceId} ${id}`);
    client.onWatchError((id, error) => {
      throw new Error(`${id}: ${error.code}: ${error.message}`);
    });
    client.onEvent((event) => {
      if (!isSessionEvent(event) || event.type !== 'message.delta') return;
      unheard.delete(`${spec.deviceId} ${event.sessionId}`);
      const label = labels.get((event as SessionEvent).sessionId) ?? 'other';
      const list = delays.get(label) ?? [];
      delays.set(label, list);
      list.push(Date.now() - (event as SessionEvent).at);
    });
    for (const { id, after } of spec.sessions) {
      const watched = client.watch(id, after);
      if (!watched.ok) throw new Error(watched.error.message);
    }
    client.start();
    clients.push(client);
  }
  await Promise.all(clients.map((client) => waitForState(client, 'open', 60_000)));
}

process.on('message', (message: { t: string; url?: string; devices?: BenchDeviceSpec[] }) => {
  if (message.t === 'connect') {
    void connect(message.url!, message.devices!).then(() => process.send?.({ t: 'ready', open: clients.length }));
  } else if (message.t === 'heard') {
    process.send?.({ t: 'heard', unheard: unheard.size });
  } else if (message.t === 'count') {
    process.send?.({
      t: 'count',
      counts: Object.fromEntries([...delays].map(([label, list]) => [label, list.length])),
    });
  } else if (message.t === 'report') {
    process.send?.({ t: 'report', delays: Object.fromEntries(delays) });
    for (const list of delays.values()) list.length = 0;
  } else if (message.t === 'stop') {
    for (const client of clients) client.stop();
    setTimeout(() => process.exit(0), 100);
  }
});
