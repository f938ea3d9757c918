import type { HostProcess } from '../support/host-process.js';
import { eventually, makeDataDir, removeDataDir, startHost, tether, tetherJson } from '../support/host-process.js';
import type { LongRunModel } from '../support/long-run-model.js';
import { startLongRunModel } from '../support/long-run-model.js';
import type { MachineProcess } from '../support/machine-process.js';
import { startMachine } from '../support/machine-process.js';
import { RelayAdversary } from '../support/relay-adversary.js';
import { pairThroughRelay } from '../support/relay-device.js';
import type { RelayProcess } from '../support/relay-process.js';
import { startRelay } from '../support/relay-process.js';
import { WsProxy } from '../support/ws-proxy.js';
import { Phone } from './phone.js';
import { RedisControl } from './redis-control.js';

/**
 * What the chaos suite runs against, all real processes on 127.0.0.1: a Redis; two relay nodes
 * sharing it, each behind a proxy the adversary speaks through (the host and the phone dial the
 * proxies, and each node names its proxy as its public URL); a host given both; a machine linked
 * to the host through a third proxy; a model making a run without end on that machine (a file
 * read a step); and a phone paired through a relay, watching the run and asking for the host and
 * the machine every 100 ms.
 */
export interface Rig {
  redis: RedisControl;
  nodes: RelayProcess[];
  relays: RelayAdversary[];
  machinePath: WsProxy;
  model: LongRunModel;
  host: HostProcess;
  machine: MachineProcess;
  phone: Phone;
  sessionId: string;
  /** The processes whose CPU a fault costs: the host, the nodes, the machine, Redis. */
  pids(): (number | undefined)[];
  /** The relay (its adversary) the host is linked through now, if any. */
  hostRelay(): RelayAdversary | undefined;
  /** The session's events as the host logged them: its last seq. */
  lastSeq(): Promise<number>;
  stop(): Promise<void>;
}

/** Milliseconds a process of the rig may take to start: a loaded machine is slow to start Node. */
const START_WAIT_MS = 120_000;

/** Milliseconds between the run's steps: each a model turn and a file read on the machine. */
const STEP_MS = 150;

export async function startRig(log: (line: string) => void): Promise<Rig> {
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    const redis = await RedisControl.start();
    stops.push(() => redis.stop());
    const relays: RelayAdversary[] = [];
    const nodes: RelayProcess[] = [];
    for (let i = 0; i < 2; i++) {
      const adversary = await RelayAdversary.start();
      stops.push(() => adversary.stop());
      const node = await startRelay(['--no-app', '--redis', redis.url, '--public-url', adversary.url]);
      stops.push(() => node.stop('SIGKILL'));
      adversary.front(node.port);
      relays.push(adversary);
      nodes.push(node);
    }
    log(
      `redis ${redis.url}; relay nodes ${nodes.map((n) => n.port).join(', ')} behind ${relays.map((r) => r.url).join(', ')}`,
    );

    const model = await startLongRunModel(1_000_000, { stepMs: STEP_MS });
    stops.push(() => model.close());
    const dataDir = makeDataDir();
    const host = await startHost(
      dataDir,
      [
        ...relays.flatMap((r) => ['--relay', r.url]),
        '--bind',
        '127.0.0.1',
        '--port',
        '0',
        '--root',
        dataDir,
        '--model',
        `openai-compatible:fake@${model.url}`,
        '--max-model-calls',
        '100000',
      ],
      {},
      START_WAIT_MS,
    );
    stops.push(async () => {
      await host.stop();
      removeDataDir(dataDir);
    });
    const linked = await host.waitFor((l) => l.event === 'relay' && l.state === 'linked', START_WAIT_MS);
    const listening = await host.waitFor((l) => l.event === 'listening', START_WAIT_MS);

    const machinePath = await WsProxy.start(Number(new URL(String(listening.url)).port));
    stops.push(() => machinePath.stop());
    const machine = await startMachine(dataDir, machinePath.url, 'laptop', { 'notes.txt': 'chaos\n' });
    stops.push(() => machine.stop());
    await eventually(
      async () => {
        const machines = await tetherJson<{ name: string; status: string }[]>(dataDir, ['machines']);
        return machines.find((m) => m.name === 'laptop' && m.status === 'online');
      },
      30_000,
      'the machine online',
    );

    const paired = await pairThroughRelay(String(linked.pairUrl), host, 'chaos phone');
    const phone = new Phone(
      paired,
      relays.map((r) => r.url),
    );
    stops.push(() => phone.stop());
    const created = await tether(dataDir, ['sessions', 'new', '--machine', 'laptop', '--cwd', machine.root, 'go'], {
      cwd: machine.root,
    });
    if (created.code !== 0) throw new Error(`the session did not start: ${created.stderr}`);
    const sessionId = created.stdout.split('\n')[0]!;
    phone.watch(sessionId);
    await eventually(() => (phone.seqs.length > 20 ? true : undefined), 60_000, 'the run to stream to the phone');
    log(`host ${host.child.pid}, machine ${machine.child.pid}, session ${sessionId} streaming`);

    return {
      redis,
      nodes,
      relays,
      machinePath,
      model,
      host,
      machine,
      phone,
      sessionId,
      pids: () => [host.child.pid, machine.child.pid, redis.pid, ...nodes.map((n) => n.child.pid)],
      hostRelay: () => {
        const last = [...host.lines].reverse().find((l) => l.event === 'relay' && l.state === 'linked');
        return relays.find((r) => r.url === last?.url && r.hostLinks.length > 0);
      },
      lastSeq: async () => {
        // A CLI call can outlast its 30 s on a machine loaded far past its cores: asked again, so
        // one slow start does not end the whole run.
        for (let attempt = 1; ; attempt++) {
          try {
            const sessions = await tetherJson<{ id: string; lastSeq: number }[]>(dataDir, ['sessions']);
            return sessions.find((s) => s.id === sessionId)?.lastSeq ?? 0;
          } catch (error) {
            if (attempt === 3) throw error;
          }
        }
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
