import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BoxKeyPair, HostEvent, Transport } from '@tether/shared-protocol';
import { generateBoxKeyPair, memoryPipe, secureRandom, systemClock } from '@tether/shared-protocol';
import type { AgentState, PtyPort } from '@tether/machine';
import { MachineAgent, MachineExecutor } from '@tether/machine';
import { HostCounters } from '../../stats/host-counters.js';
import { openDatabase } from '../../store/database.js';
import type { Db } from '../../store/database.js';
import { MachineLinkServer } from '../machine-link-server.js';
import { MachineRegistry } from '../machine-registry.js';
import { MachineStore } from '../machine-store.js';
import { TokenStore } from '../token-store.js';
import type { Clock } from '@tether/shared-protocol';

/** A host's machine side on an in-memory database, and machines that link to it in-process. */
export interface MachineKit {
  db: Db;
  hostKeys: BoxKeyPair;
  tokens: TokenStore;
  store: MachineStore;
  registry: MachineRegistry;
  server: MachineLinkServer;
  stats: HostCounters;
  events: HostEvent[];
  base: string;
  /** Starts a machine agent sharing `roots` (created under base) with `token`. */
  machine(options: {
    token: string;
    name?: string;
    machineId?: string;
    root?: string;
    /** Terminals on the machine: real PTYs unless given. */
    pty?: PtyPort;
    maxPtys?: number;
    /** The address the host sees the machine dial from; 127.0.0.1 by default. */
    address?: string;
    /** The machine's private list (none by default) and the home folder it tells the host. */
    privates?: readonly string[];
    home?: string;
  }): TestMachine;
  close(): Promise<void>;
}

export interface TestMachine {
  agent: MachineAgent;
  executor: MachineExecutor;
  root: string;
  states: AgentState[];
  done: Promise<Extract<AgentState, { name: 'stopped' }>>;
  /** Resolves once the agent reached `name` (or stopped). */
  reached(name: AgentState['name']): Promise<AgentState>;
  stop(): Promise<void>;
}

export function machineKit(options: { clock?: Clock; waitMs?: number } = {}): MachineKit {
  const clock = options.clock ?? systemClock;
  const db = openDatabase(':memory:');
  const hostKeys = generateBoxKeyPair();
  const tokens = new TokenStore(db);
  const store = new MachineStore(db);
  const events: HostEvent[] = [];
  let ids = 0;
  const registry = new MachineRegistry({
    store,
    tokens,
    clock,
    hostId: 'h_test',
    newId: (prefix) => `${prefix}_${++ids}`,
    waitMs: options.waitMs ?? 15 * 60_000,
    publish: (event) => events.push(event),
  });
  const stats = new HostCounters();
  const server = new MachineLinkServer({ registry, hostKeys, clock, random: secureRandom, stats });
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-machines-')));
  const machines: TestMachine[] = [];
  return {
    db,
    hostKeys,
    tokens,
    store,
    registry,
    server,
    stats,
    events,
    base,
    machine({
      token,
      name = 'laptop',
      machineId = 'm_laptop',
      root,
      pty,
      maxPtys,
      address = '127.0.0.1',
      privates = [],
      home,
    }) {
      const shared = root ?? join(base, name);
      mkdirSync(shared, { recursive: true });
      const executor = new MachineExecutor({
        roots: [shared],
        privates,
        tasksDir: join(base, `${name}-tasks`),
        clock,
        ...(pty ? { pty } : {}),
        ...(maxPtys !== undefined ? { maxPtys } : {}),
      });
      const states: AgentState[] = [];
      const watchers: (() => void)[] = [];
      const connect = (): Promise<Transport> => {
        const [machineEnd, hostEnd] = memoryPipe();
        server.accept(hostEnd, address);
        return Promise.resolve(machineEnd);
      };
      const pins = new Map<string, Uint8Array>();
      const agent = new MachineAgent({
        hostUrl: 'http://127.0.0.1:1',
        token,
        machineId,
        name,
        roots: [shared],
        version: 'test',
        ...(home !== undefined ? { home } : {}),
        executor,
        pins: { get: (url) => pins.get(url), set: (url, key) => void pins.set(url, key) },
        connect,
        clock,
        random: secureRandom,
        jitter: () => 0,
        onState: (state) => {
          states.push(state);
          for (const watch of watchers.splice(0)) watch();
        },
      });
      const done = agent.run();
      const reached = (wanted: AgentState['name']) =>
        new Promise<AgentState>((resolve) => {
          const check = () => {
            const last = states.at(-1);
            if (last && (last.name === wanted || last.name === 'stopped')) resolve(last);
            else watchers.push(check);
          };
          check();
        });
      const machine: TestMachine = {
        agent,
        executor,
        root: shared,
        states,
        done,
        reached,
        stop: async () => {
          agent.stop();
          await done;
          await executor.close();
        },
      };
      machines.push(machine);
      return machine;
    },
    async close() {
      registry.close();
      await Promise.all(machines.map((m) => m.stop()));
      db.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
}
