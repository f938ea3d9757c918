import { nodeLinkAead } from '../link/node-link-aead.js';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BoxKeyPair, LinkPeer, Result, Transport } from '@tether/shared-protocol';
import {
  acceptMachineLink,
  fail,
  generateBoxKeyPair,
  memoryPipe,
  ok,
  secureRandom,
  toBase64Url,
} from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentState, HostKeyPinStore } from './machine-agent.js';
import { MachineAgent, RECONNECT_BACKOFF } from './machine-agent.js';
import { MachineExecutor } from './machine-executor.js';

const tick = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
};

/** A host on the other end of in-memory pipes: answers each registration by `decide`. */
function fakeHost(
  hostKeys: BoxKeyPair,
  clock: ManualClock,
  decide: (params: Record<string, unknown>) => Result<unknown>,
) {
  const links: LinkPeer[] = [];
  const registrations: Record<string, unknown>[] = [];
  let refuseConnections = false;
  const connect = (): Promise<Transport> => {
    if (refuseConnections) return Promise.reject(new Error('connection refused'));
    const [machineEnd, hostEnd] = memoryPipe();
    void acceptMachineLink(hostEnd, { clock, random: secureRandom, aead: nodeLinkAead, hostKeys }).then((peer) => {
      if (!peer.ok) return;
      links.push(peer.value);
      peer.value.onRequest = (method, params) => {
        if (method !== 'machine.register') return Promise.resolve(fail('forbidden', 'register first'));
        registrations.push(params as Record<string, unknown>);
        return Promise.resolve(decide(params as Record<string, unknown>));
      };
    });
    return Promise.resolve(machineEnd);
  };
  return {
    connect,
    links,
    registrations,
    refuse: (on: boolean) => (refuseConnections = on),
  };
}

class MemoryPins implements HostKeyPinStore {
  readonly pins = new Map<string, Uint8Array>();
  get(url: string) {
    return this.pins.get(url);
  }
  set(url: string, key: Uint8Array) {
    this.pins.set(url, key);
  }
}

let base: string;
let executor: MachineExecutor;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-agent-')));
  executor = new MachineExecutor({ roots: [base], privates: [], tasksDir: join(base, '.tasks') });
});
afterEach(async () => {
  await executor.close();
  rmSync(base, { recursive: true, force: true });
});

function agentFor(
  host: ReturnType<typeof fakeHost>,
  clock: ManualClock,
  pins: MemoryPins,
  extra: { hostKey?: Uint8Array } = {},
) {
  const states: AgentState[] = [];
  const notices: string[] = [];
  const agent = new MachineAgent({
    hostUrl: 'http://127.0.0.1:7420',
    token: 'tm_abc_secret',
    machineId: 'm_test',
    name: 'laptop',
    roots: [base],
    version: '0.1.0',
    executor,
    pins,
    connect: host.connect,
    clock,
    random: secureRandom,
    jitter: () => 0,
    onState: (s) => states.push(s),
    onNotice: (t) => notices.push(t),
    ...extra,
  });
  return { agent, states, notices };
}

const accepted = () => ok({ machineId: 'm_test', hostId: 'h_test', name: 'laptop' });

describe('machine agent', () => {
  it('registers with its token, pins the key on first contact and serves the host', async () => {
    const clock = new ManualClock();
    const keys = generateBoxKeyPair();
    const host = fakeHost(keys, clock, accepted);
    const pins = new MemoryPins();
    const { agent, states, notices } = agentFor(host, clock, pins);
    const done = agent.run();
    await tick(10);
    expect(states.at(-1)).toMatchObject({ name: 'linked', hostId: 'h_test' });
    expect(host.registrations[0]).toMatchObject({
      token: 'tm_abc_secret',
      machineId: 'm_test',
      name: 'laptop',
      roots: [base],
    });
    expect(pins.get('http://127.0.0.1:7420')).toEqual(keys.publicKey);
    expect(notices[0]).toContain(`pinned its key ${toBase64Url(keys.publicKey)}`);
    expect(await host.links[0]!.request('fs.checkFolder', { path: base })).toEqual({ ok: true, value: { path: base } });
    agent.stop();
    expect(await done).toMatchObject({ name: 'stopped', forGood: false });
  });

  it('refuses a host whose key changed, never sends it the token, and tries again later: another key is not the pinned host', async () => {
    const clock = new ManualClock();
    const pins = new MemoryPins();
    pins.set('http://127.0.0.1:7420', generateBoxKeyPair().publicKey);
    const host = fakeHost(generateBoxKeyPair(), clock, accepted);
    const { agent, states } = agentFor(host, clock, pins);
    const done = agent.run();
    await tick(10);
    const retrying = states.at(-1);
    expect(retrying).toMatchObject({ name: 'retrying' });
    expect(retrying?.name === 'retrying' && retrying.why).toContain('now proves a different key');
    expect(host.registrations).toEqual([]);
    clock.advance(1000);
    await tick(10);
    expect(states.filter((s) => s.name === 'connecting')).toHaveLength(2);
    expect(host.registrations).toEqual([]);
    agent.stop();
    expect(await done).toMatchObject({ forGood: false });
  });

  it('refuses a host that does not prove the --host-key given, and tries again later', async () => {
    const clock = new ManualClock();
    const host = fakeHost(generateBoxKeyPair(), clock, accepted);
    const { agent, states } = agentFor(host, clock, new MemoryPins(), { hostKey: generateBoxKeyPair().publicKey });
    const done = agent.run();
    await tick(10);
    const retrying = states.at(-1);
    expect(retrying?.name === 'retrying' && retrying.why).toContain('not the --host-key');
    expect(host.registrations).toEqual([]);
    agent.stop();
    expect(await done).toMatchObject({ forGood: false });
  });

  it('takes an unsealed close during the handshake (4005, another version) for a drop: it tries again, and links', async () => {
    const clock = new ManualClock();
    const keys = generateBoxKeyPair();
    const host = fakeHost(keys, clock, accepted);
    let hostile = 3;
    const connect = async (): Promise<Transport> => {
      if (hostile === 0) return host.connect();
      hostile--;
      // Something on the path answers the hello with the "another version" close code.
      const [machineEnd, pathEnd] = memoryPipe();
      pathEnd.onMessage = () => pathEnd.close(4005, 'version-unsupported');
      return Promise.resolve(machineEnd);
    };
    const { agent, states } = agentFor({ ...host, connect }, clock, new MemoryPins());
    const done = agent.run();
    for (let i = 0; i < 3; i++) {
      await tick(10);
      const retrying = states.at(-1);
      expect(retrying).toMatchObject({ name: 'retrying' });
      expect(retrying?.name === 'retrying' && retrying.why).toContain('4005');
      clock.advance(retrying?.name === 'retrying' ? retrying.at - clock.now() : 0);
    }
    await tick(10);
    expect(states.at(-1)?.name).toBe('linked');
    agent.stop();
    expect(await done).toMatchObject({ forGood: false });
  });

  it('keeps its backoff growing when the host drops the link right after registering it', async () => {
    const clock = new ManualClock();
    const host = fakeHost(generateBoxKeyPair(), clock, accepted);
    const { agent, states } = agentFor(host, clock, new MemoryPins());
    const done = agent.run();
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      await tick(10);
      expect(states.at(-1)?.name).toBe('linked');
      const link = host.links.at(-1)!;
      (link as unknown as { options: { transport: Transport } }).options.transport.close(1011, 'server-error');
      await tick(10);
      const retrying = states.at(-1);
      if (retrying?.name !== 'retrying') throw new Error(`expected retrying, got ${retrying?.name}`);
      delays.push(retrying.at - clock.now());
      clock.advance(retrying.at - clock.now());
    }
    // jitter 0: half of each step, growing as for failed dials.
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000]);
    agent.stop();
    await done;
  });

  it('stops for good when the host refuses the token, without trying again', async () => {
    const clock = new ManualClock();
    const host = fakeHost(generateBoxKeyPair(), clock, () => fail('forbidden', 'unknown or revoked machine token'));
    const { agent } = agentFor(host, clock, new MemoryPins());
    const final = await agent.run();
    expect(final).toMatchObject({ forGood: true });
    expect(final.why).toContain('unknown or revoked machine token');
    expect(host.registrations).toHaveLength(1);
  });

  it('retries an unreachable host with a backoff from 1 s up to 30 s', async () => {
    const clock = new ManualClock();
    const host = fakeHost(generateBoxKeyPair(), clock, accepted);
    host.refuse(true);
    const { agent, states } = agentFor(host, clock, new MemoryPins());
    const done = agent.run();
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      await tick();
      const retrying = states.at(-1);
      if (retrying?.name !== 'retrying') throw new Error(`expected retrying, got ${retrying?.name}`);
      delays.push(retrying.at - clock.now());
      clock.advance(retrying.at - clock.now());
    }
    // jitter 0: half of each step.
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 15000, 15000, 15000]);
    expect(RECONNECT_BACKOFF).toEqual({ baseMs: 1000, maxMs: 30_000 });
    host.refuse(false);
    clock.advance(30_000);
    await tick(10);
    expect(states.at(-1)?.name).toBe('linked');
    agent.stop();
    await done;
  });

  it('stops for good on a sealed revocation, but dials again after an unsealed close', async () => {
    const clock = new ManualClock();
    const host = fakeHost(generateBoxKeyPair(), clock, accepted);
    const { agent, states } = agentFor(host, clock, new MemoryPins());
    const done = agent.run();
    await tick(10);
    expect(states.at(-1)?.name).toBe('linked');
    // Anyone on the path could close the socket with the "revoked" close code: only a drop.
    const first = host.links[0]!;
    (first as unknown as { options: { transport: Transport } }).options.transport.close(4003, 'revoked');
    await tick(10);
    expect(states.at(-1)).toMatchObject({ name: 'retrying' });
    clock.advance(1000);
    await tick(10);
    expect(states.at(-1)?.name).toBe('linked');
    expect(host.registrations).toHaveLength(2);
    // The host itself says so, sealed: the machine stops for good.
    host.links[1]!.bye('revoked', 'the token laptop was revoked');
    const final = await done;
    expect(final).toMatchObject({ forGood: true });
    expect(final.why).toContain('the token laptop was revoked');
  });
});
