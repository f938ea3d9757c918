import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { HostProcess } from '../support/host-process.js';
import { TETHER_BIN, eventually, makeDataDir, removeDataDir, startHost, tetherJson } from '../support/host-process.js';
import { WsProxy } from '../support/ws-proxy.js';

/**
 * A real host, a real `tether machine share --service`, and a hostile path between them (a proxy
 * that answers the machine's hello with a close code of its choosing). A close code is not sealed:
 * only a sealed refusal from the pinned host stops a machine for good, and a service never exits 0
 * on a fault (systemd would not restart it).
 */

let host: HostProcess;
let proxy: WsProxy;
let share: ChildProcess | undefined;
let out = '';
let base: string;

test.afterEach(async () => {
  if (share && share.exitCode === null && share.signalCode === null) {
    const exited = new Promise((resolve) => share!.once('exit', resolve));
    share.kill('SIGTERM');
    await exited;
  }
  share = undefined;
  out = '';
  await proxy.stop();
  await host.stop();
  removeDataDir(host.dataDir);
  removeDataDir(base);
});

for (const [code, reason] of [
  [4005, 'version-unsupported'],
  [4003, 'revoked'],
] as const) {
  test(`a close ${code} during the machine link's handshake is a retry: the service keeps trying and links`, async () => {
    host = await startHost(makeDataDir());
    const listening = await host.waitFor((l) => l.event === 'listening');
    proxy = await WsProxy.start(Number(new URL(String(listening.url)).port));
    let hostile = 3;
    proxy.fromClient = (socket) => {
      if (socket.path !== '/machines/ws' || socket.marks.has('seen')) return undefined;
      socket.marks.add('seen');
      if (hostile === 0) return undefined;
      hostile--;
      proxy.closeClient(socket, code, reason);
      return null;
    };

    const created = await tetherJson<{ token: string; hostKey: string }>(host.dataDir, [
      'token',
      'create',
      '--scope',
      'machine',
      '--name',
      'laptop',
    ]);
    base = realpathSync(makeDataDir());
    const root = join(base, 'code');
    mkdirSync(root);
    const tokenFile = join(base, 'token');
    writeFileSync(tokenFile, `${created.token}\n`, { mode: 0o600 });
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: base };
    delete env.TETHER_DATA_DIR;
    delete env.TETHER_MACHINE_DIR;
    share = spawn(
      process.execPath,
      [
        TETHER_BIN,
        'machine',
        'share',
        '--host',
        proxy.url,
        '--token-file',
        tokenFile,
        '--name',
        'laptop',
        '--root',
        root,
        '--host-key',
        created.hostKey,
        '--machine-dir',
        join(base, 'machine-data'),
        '--service',
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    share.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    share.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    let exit: number | null | undefined;
    share.once('exit', (c) => (exit = c));

    await eventually(
      async () => {
        const machines = await tetherJson<{ name: string; status: string }[]>(host.dataDir, ['machines']);
        return machines.find((m) => m.name === 'laptop' && m.status === 'online');
      },
      30_000,
      'the machine to come online through the hostile path',
    ).catch((error: Error) => {
      throw new Error(`${error.message}; exit ${exit}; share printed: ${out}`);
    });
    expect(hostile).toBe(0);
    expect(exit).toBeUndefined();
    expect(out).toContain(String(code));
    expect(out).toMatch(/trying again in \d+ s/);
  });
}
