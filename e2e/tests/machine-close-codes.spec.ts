import { expect, test } from '@playwright/test';
import type { HostProcess } from '../support/host-process.js';
import { eventually, makeDataDir, removeDataDir, startHost, tetherJson } from '../support/host-process.js';
import type { MachineProcess } from '../support/machine-process.js';
import { startMachine } from '../support/machine-process.js';
import { WsProxy } from '../support/ws-proxy.js';

/**
 * A real host, a real `tether machine share --service`, and a hostile path between them (a proxy
 * that answers the machine's hello with a close code of its choosing). A close code is not sealed:
 * only a sealed refusal from the pinned host stops a machine for good, and a service never exits 0
 * on a fault (systemd would not restart it).
 */

let host: HostProcess;
let proxy: WsProxy;
let machine: MachineProcess | undefined;

test.afterEach(async () => {
  await machine?.stop();
  machine = undefined;
  await proxy.stop();
  await host.stop();
  removeDataDir(host.dataDir);
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
    const started = await startMachine(host.dataDir, proxy.url);
    machine = started;
    await eventually(
      async () => {
        const machines = await tetherJson<{ name: string; status: string }[]>(host.dataDir, ['machines']);
        return machines.find((m) => m.name === 'laptop' && m.status === 'online');
      },
      30_000,
      'the machine to come online through the hostile path',
    ).catch((error: Error) => {
      throw new Error(`${error.message}; exit ${started.exitCode()}; share printed: ${started.output()}`);
    });
    expect(hostile).toBe(0);
    expect(started.exitCode()).toBeUndefined();
    expect(started.output()).toContain(String(code));
    expect(started.output()).toMatch(/trying again in \d+ s/);
  });
}
