import {
  MACHINE_PROTOCOL_VERSION,
  MAX_OUTPUT_CHUNK_BYTES,
  MachineLinkInitiator,
  OUTPUT_WINDOW_BYTES,
  decodeChannelMessage,
  encodeChannelMessage,
  toBase64Url,
} from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import type { MachineKit } from '../src/machines/testing/machine-kit.js';
import { machineKit } from '../src/machines/testing/machine-kit.js';
import type { FuzzKit } from './fuzz-kit.js';
import { settle } from './fuzz-kit.js';
import { fuzzPipe } from './fuzz-pipe.js';
import { hostCall } from './host-calls.js';
import { MachineEnd } from './machine-end.js';

/**
 * Hostile bytes from a machine to the host, through the host's real MachineLinkServer and
 * registry over an in-memory socket: mutated and random hellos, registrations with mutated
 * fields (a changed token above all), requests a machine may not make, events of every kind with
 * mutated fields (output for processes that do not exist, past their window, task exits),
 * mutated and misaddressed replies to the host's own calls, frames that do not open, and silence
 * past the registration deadline.
 *
 * The oracle: nothing throws and every close is one `ws` can send; a registration is accepted
 * only with the real token; a machine's other requests are refused `forbidden`; each of the
 * host's calls ends (with the reply sent for it, or an execution error with a known code),
 * whatever the machine answers or fails to; and a process whose machine ignores flow control is
 * killed before its output fills memory.
 */
export class LinkServerTarget {
  private readonly clock = new ManualClock();
  private readonly machines: MachineKit;
  private readonly token: string;
  private link: MachineEnd | undefined;

  constructor(private readonly kit: FuzzKit) {
    this.machines = machineKit({ clock: this.clock });
    this.token = this.machines.tokens.create('fuzz', this.clock.now()).token;
  }

  async step(): Promise<void> {
    const k = this.kit;
    if (k.chance(0.01)) return this.kit.waiting('strangerHello', this.strangerHello());
    if (!this.link || this.link.end.closed) {
      this.link = await this.kit.waiting('connect', MachineEnd.connect(k, this.machines));
      if (!this.link || this.link.end.closed) return;
    }
    const link = this.link;
    if (!link.name) return this.kit.waiting('register', this.register(link));
    const roll = k.random();
    if (roll < 0.45) await this.kit.waiting('hostCall', hostCall(k, this.machines, link));
    else if (roll < 0.75) this.event(link);
    else if (roll < 0.85) await this.kit.waiting('machineRequest', this.machineRequest(link));
    else if (roll < 0.88) await this.kit.waiting('register', this.register(link));
    else if (roll < 0.882) await this.kit.waiting('flood', this.flood(link));
    else if (roll < 0.93) link.send(k.randomBytes(200));
    else if (roll < 0.95) {
      // A frame changed on the way: the link must end.
      const frame = link.sealer!.seal(encodeChannelMessage({ t: 'pong', n: 1 }));
      if (frame.ok) link.end.send(k.mutate(frame.value));
      await settle();
      if (!link.end.closed) k.fail('a frame that does not open left the link up');
    } else if (roll < 0.96) {
      link.send(encodeChannelMessage({ t: 'bye', code: k.pick(['revoked', 'internal', 'busy']), message: 'bye' }));
    } else if (roll < 0.97) {
      this.clock.advance(25_000);
    } else link.send(encodeChannelMessage({ t: 'ping', n: k.int(1000) }));
    await settle();
  }

  /** A socket whose hello is changed or random: refused, or a link that cannot be used. */
  private async strangerHello(): Promise<void> {
    const k = this.kit;
    const [end, hostEnd] = fuzzPipe((what) => k.fail(what));
    this.machines.server.accept(hostEnd, k.pick(['198.51.100.1', '203.0.113.2', '2001:db8::1']));
    const hello = new MachineLinkInitiator(k.bytes).hello();
    end.send(k.chance(0.8) ? k.mutate(hello) : k.randomBytes(80));
    await settle();
    if (k.chance(0.5)) end.send(k.randomBytes(100));
    await settle();
    end.close(1000, 'done');
    await settle();
    k.count(`machine-link:stranger-${hostEnd.closedWith?.reason ?? 'open'}`);
  }

  private registerParams(): Record<string, unknown> {
    return {
      token: this.token,
      machineId: 'm_fuzz',
      name: 'fuzzbox',
      roots: ['/srv/share'],
      capabilities: ['exec', 'files'],
      protocolVersion: MACHINE_PROTOCOL_VERSION,
      version: '1.0.0',
      ...(this.kit.chance(0.5) ? { home: '/home/fuzz' } : {}),
    };
  }

  /** A registration, as it is or changed: only the real token may register. */
  private async register(link: MachineEnd): Promise<void> {
    const k = this.kit;
    const id = link.nextId++;
    const seed = encodeChannelMessage({ t: 'req', id, method: 'machine.register', params: this.registerParams() });
    const plain = k.chance(0.5) ? seed : k.mutate(seed);
    const seen = decodeChannelMessage(plain);
    link.send(plain);
    await settle();
    const answer = link.take((m) => m.t === 'res' && seen?.t === 'req' && m.id === seen.id);
    if (answer?.t !== 'res') {
      k.count(`machine-link:register-${seen?.t === 'req' ? 'unanswered' : 'undecodable'}`);
      return;
    }
    if ('error' in answer) return k.count(`machine-link:register-${answer.error.code}`);
    const params = seen?.t === 'req' ? (seen.params as { token?: unknown; name?: unknown }) : undefined;
    if (link.name) k.fail('a second registration on one link was accepted');
    if (seen?.t !== 'req' || seen.method !== 'machine.register' || params?.token !== this.token) {
      return k.fail('a registration without the real token was accepted');
    }
    link.name = (answer.result as { name: string }).name;
    k.count('machine-link:registered');
  }

  /** A request a machine may not make: refused `forbidden`. */
  private async machineRequest(link: MachineEnd): Promise<void> {
    const k = this.kit;
    const id = link.nextId++;
    const method = k.pick(['fs.read', 'sessions.create', 'host.info', 'exec.run', '']);
    link.send(encodeChannelMessage({ t: 'req', id, method, params: { path: '/etc/passwd' } }));
    await settle();
    const answer = link.take((m) => m.t === 'res' && m.id === id);
    if (answer?.t !== 'res' || !('error' in answer) || answer.error.code !== 'forbidden') {
      k.fail(`a machine's ${method || 'empty'} request was not refused as forbidden`);
    }
  }

  /** An event as a machine sends it, with its fields changed. */
  private event(link: MachineEnd): void {
    const k = this.kit;
    const procId = k.pick(['p_1', 'p_2', `p_${k.int(100)}`]);
    const events = [
      { type: 'proc.output', procId, stream: 'stdout', data: toBase64Url(k.bytes(k.int(100))) },
      {
        type: 'proc.exit',
        procId,
        code: k.pick([0, 1, null, -1, 1.5]),
        signal: k.pick([null, 'SIGKILL', 'x'.repeat(300)]),
      },
      { type: 'pty.output', ptyId: procId, data: toBase64Url(k.bytes(20)) },
      { type: 'pty.exit', ptyId: procId, code: 0, signal: null },
      {
        type: 'task.exit',
        task: {
          id: 't_1',
          command: 'make',
          cwd: '/srv/share',
          startedAt: 1,
          state: 'exited',
          code: 0,
          signal: null,
          endedAt: 2,
          outputBytes: 0,
          droppedBytes: 0,
        },
      },
      { type: 'proc.ack', procId, bytes: 10 },
      { type: 'no-such-event' },
    ];
    const seed = encodeChannelMessage({ t: 'evt', event: k.pick(events) });
    link.send(k.chance(0.5) ? seed : k.mutate(seed));
  }

  /**
   * A process whose machine sends output past its window while nobody reads it: the host kills it
   * once it holds twice the window, so a machine cannot fill the host's memory this way.
   */
  private async flood(link: MachineEnd): Promise<void> {
    const k = this.kit;
    const context = this.machines.registry.context(link.name!)!;
    const spawning = context.spawn({ command: { program: 'yes', args: [] }, cwd: '/srv/share' });
    await settle();
    const request = link.take((m) => m.t === 'req' && m.method === 'proc.spawn');
    if (request?.t !== 'req') return;
    link.send(encodeChannelMessage({ t: 'res', id: request.id, result: {} }));
    await settle();
    const started = await spawning;
    if (!started.ok) return;
    const procId = (request.params as { procId: string }).procId;
    let ended = false;
    void started.value.exited.then(() => (ended = true));
    const chunk = toBase64Url(new Uint8Array(MAX_OUTPUT_CHUNK_BYTES));
    const most = Math.ceil((2 * OUTPUT_WINDOW_BYTES) / MAX_OUTPUT_CHUNK_BYTES) + 2;
    for (let i = 0; i < most && !ended && !link.end.closed; i++) {
      link.send(
        encodeChannelMessage({ t: 'evt', event: { type: 'proc.output', procId, stream: 'stdout', data: chunk } }),
      );
      await settle(1);
    }
    await settle();
    if (!ended && !link.end.closed) k.fail('a process past its output window was not stopped');
    k.count('machine-link:flooded');
    link.incoming.length = 0;
  }

  /** Everything this machine's links left behind is gone: the host holds no pending link. */
  async close(): Promise<void> {
    this.link?.end.close(1000, 'end');
    await settle();
    await this.machines.close();
  }

  get stats(): string {
    return Object.entries(this.machines.stats.snapshot())
      .map(([k, n]) => `${k}=${n}`)
      .join(', ');
  }
}
