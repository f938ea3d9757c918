import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { WebSocket } from 'ws';
import type { HostProcess } from '../support/host-process.js';
import { TETHER_BIN, eventually, makeDataDir, removeDataDir, startHost, tetherJson } from '../support/host-process.js';

// Sixteen sockets that open a machine link and never say a word used to fill the host's whole
// pool of links in their handshake, so no machine could link while they were held. Here a flood
// from 127.0.0.2 (loopback, another address) keeps reopening every socket the host closes, and a
// real `tether machine share` from 127.0.0.1 must still come online at once.

const FLOOD = 20;
/** How long the test waits for the machine at all; what it checks is that its first dial got in. */
const ONLINE_WITHIN_MS = 30_000;

let dataDir: string | undefined;
let host: HostProcess | undefined;
let share: ChildProcess | undefined;
let flooding = false;
const sockets = new Set<WebSocket>();

test.afterEach(async () => {
  flooding = false;
  for (const socket of sockets) socket.terminate();
  sockets.clear();
  if (share && share.exitCode === null && share.signalCode === null) {
    const exited = new Promise((resolve) => share!.once('exit', resolve));
    share.kill('SIGTERM');
    await exited;
  }
  await host?.stop();
  if (dataDir) removeDataDir(dataDir);
  share = host = dataDir = undefined;
});

/** A silent socket from 127.0.0.2, opened again whenever it closes, while the flood lasts. */
function silentSocket(url: string, answered: { count: number }): void {
  if (!flooding) return;
  const socket = new WebSocket(url, { localAddress: '127.0.0.2' });
  sockets.add(socket);
  const again = () => {
    if (!sockets.delete(socket)) return;
    setTimeout(() => silentSocket(url, answered), 100);
  };
  socket.on('open', () => answered.count++);
  socket.on('unexpected-response', (request) => {
    // The upgrade refused (503): handled here, ws leaves the request to end and emits no close.
    answered.count++;
    request.destroy();
    again();
  });
  socket.on('error', () => undefined);
  socket.on('close', again);
}

test('silent sockets from one address never keep a machine from another address out', async () => {
  dataDir = makeDataDir();
  host = await startHost(join(dataDir, 'data'));
  const listening = await host.waitFor((l) => l.event === 'listening');
  const url = String(listening.url);

  const answered = { count: 0 };
  flooding = true;
  for (let i = 0; i < FLOOD; i++) silentSocket(`${url.replace('http', 'ws')}/machines/ws`, answered);
  // Every socket of the flood is held or turned away before the machine dials.
  await eventually(() => (answered.count >= FLOOD ? true : undefined), 10_000, 'the flood to be answered');

  const created = await tetherJson<{ token: string; hostKey: string }>(host.dataDir, [
    'token',
    'create',
    '--scope',
    'machine',
    '--name',
    'laptop',
  ]);
  const machineHome = join(dataDir, 'machine');
  mkdirSync(join(machineHome, 'code'), { recursive: true });
  const tokenFile = join(machineHome, 'token');
  writeFileSync(tokenFile, `${created.token}\n`, { mode: 0o600 });
  share = spawn(
    process.execPath,
    [
      TETHER_BIN,
      'machine',
      'share',
      '--host',
      url,
      '--token-file',
      tokenFile,
      '--name',
      'laptop',
      '--root',
      join(machineHome, 'code'),
      // A key that starts with a dash is a value only in this spelling.
      `--host-key=${created.hostKey}`,
      '--machine-dir',
      join(machineHome, 'machine-data'),
      '--json',
    ],
    {
      env: { ...process.env, HOME: machineHome, TETHER_DATA_DIR: '', TETHER_MACHINE_DIR: '' },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  // The machine's own account of its link: every state it went through, in order.
  const states: { name: string; attempt?: number }[] = [];
  let output = '';
  share.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    const lines = output.split('\n');
    output = lines.pop()!;
    for (const line of lines) {
      const event = JSON.parse(line) as { event: string; name?: string; attempt?: number };
      if (event.event === 'state')
        states.push({ name: event.name!, ...(event.attempt !== undefined ? { attempt: event.attempt } : {}) });
    }
  });
  await eventually(
    async () => {
      const machines = await tetherJson<{ name: string; status: string }[]>(host!.dataDir, ['machines']);
      return machines.find((m) => m.name === 'laptop' && m.status === 'online');
    },
    ONLINE_WITHIN_MS,
    'the machine to come online through the flood',
  );
  // Its first dial got in: never refused, never waiting for a held socket to time out and free
  // its place (however long a busy machine took to start it).
  await eventually(() => (states.some((st) => st.name === 'linked') ? true : undefined), 10_000, 'the link state');
  expect(states.slice(0, states.findIndex((st) => st.name === 'linked') + 1)).toEqual([
    { name: 'connecting', attempt: 0 },
    { name: 'linked' },
  ]);
  // The flood was still on: sockets from 127.0.0.2 were being held or refused all along.
  expect(sockets.size).toBeGreaterThan(0);
});
