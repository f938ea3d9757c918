import type { ChannelMessage, MachineMethodName, ProtocolError } from '@tether/shared-protocol';
import {
  EXEC_ERROR_CODES,
  LinkFrameOpener,
  LinkFrameSealer,
  MACHINE_METHODS,
  MACHINE_PROTOCOL_VERSION,
  MAX_LINK_FRAME_PLAINTEXT,
  MAX_OUTPUT_CHUNK_BYTES,
  MachineLinkInitiator,
  OUTPUT_WINDOW_BYTES,
  decodeChannelMessage,
  encodeChannelMessage,
  toBase64Url,
} from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import * as v from 'valibot';
import { nodeLinkAead } from '@tether/machine';
import type { MachineKit } from '../src/machines/testing/machine-kit.js';
import { machineKit } from '../src/machines/testing/machine-kit.js';
import type { RemoteMachineContext } from '../src/machines/remote-machine-context.js';
import type { FuzzKit } from './fuzz-kit.js';
import { describe, settle } from './fuzz-kit.js';
import type { FuzzPipeEnd } from './fuzz-pipe.js';
import { fuzzPipe } from './fuzz-pipe.js';

const EXEC_CODES: ReadonlySet<string> = new Set(EXEC_ERROR_CODES);

/** A valid result of each method the host asks a machine, as a machine would answer it. */
const RESULTS: Partial<Record<MachineMethodName, unknown>> = {
  'fs.read': { text: 'hi', size: 2 },
  'fs.write': { created: true, path: '/srv/share/x' },
  'fs.list': { entries: [{ name: 'a', type: 'file', size: 1 }], truncated: false },
  'fs.realPath': { path: '/srv/share/x' },
  'fs.checkFolder': { path: '/srv/share' },
  'fs.search': { hits: [{ path: 'a', line: 1, text: 'x' }], truncated: false, filesScanned: 1 },
  'fs.listDirs': { path: null, parent: null, dirs: [{ name: 'share', path: '/srv/share' }], truncated: false },
  'exec.run': {
    exitCode: 0,
    signal: null,
    output: 'ok',
    droppedBytes: 0,
    timedOut: false,
    aborted: false,
    durationMs: 1,
  },
  'proc.spawn': {},
  'tasks.list': { tasks: [] },
};

interface Link {
  end: FuzzPipeEnd;
  sealer: LinkFrameSealer | undefined;
  opener: LinkFrameOpener | undefined;
  initiator: MachineLinkInitiator;
  /** What the host sent, opened and decoded, not yet taken. */
  incoming: ChannelMessage[];
  /** The name the host registered it under, once it did. */
  name: string | undefined;
  nextId: number;
}

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
  private link: Link | undefined;

  constructor(private readonly kit: FuzzKit) {
    this.machines = machineKit({ clock: this.clock });
    this.token = this.machines.tokens.create('fuzz', this.clock.now()).token;
  }

  async step(): Promise<void> {
    const k = this.kit;
    if (k.chance(0.01)) return this.kit.waiting('strangerHello', this.strangerHello());
    if (!this.link || this.link.end.closed) {
      await this.kit.waiting('connect', this.connect());
      if (!this.link || this.link.end.closed) return;
    }
    const link = this.link;
    if (!link.name) return this.kit.waiting('register', this.register(link));
    const roll = k.random();
    if (roll < 0.45) await this.kit.waiting('hostCall', this.hostCall(link));
    else if (roll < 0.75) this.event(link);
    else if (roll < 0.85) await this.kit.waiting('machineRequest', this.machineRequest(link));
    else if (roll < 0.88) await this.kit.waiting('register', this.register(link));
    else if (roll < 0.882) await this.kit.waiting('flood', this.flood(link));
    else if (roll < 0.93) this.sendPlain(link, k.randomBytes(200));
    else if (roll < 0.95) {
      // A frame changed on the way: the link must end.
      const frame = link.sealer!.seal(encodeChannelMessage({ t: 'pong', n: 1 }));
      if (frame.ok) link.end.send(k.mutate(frame.value));
      await settle();
      if (!link.end.closed) k.fail('a frame that does not open left the link up');
    } else if (roll < 0.96) {
      this.sendPlain(
        link,
        encodeChannelMessage({ t: 'bye', code: k.pick(['revoked', 'internal', 'busy']), message: 'bye' }),
      );
    } else if (roll < 0.97) {
      this.clock.advance(25_000);
    } else this.sendPlain(link, encodeChannelMessage({ t: 'ping', n: k.int(1000) }));
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

  /** A real handshake on a new socket. */
  private async connect(): Promise<void> {
    const k = this.kit;
    const [end, hostEnd] = fuzzPipe((what) => k.fail(what));
    const link: Link = {
      end,
      sealer: undefined,
      opener: undefined,
      initiator: new MachineLinkInitiator(k.bytes),
      incoming: [],
      name: undefined,
      nextId: 1,
    };
    this.link = link;
    end.onMessage = (data) => this.receive(link, data);
    this.machines.server.accept(hostEnd, '203.0.113.9');
    end.send(link.initiator.hello());
    await settle();
    if (!link.sealer) k.fail('the host did not welcome a real hello');
  }

  private receive(link: Link, data: Uint8Array): void {
    const k = this.kit;
    if (!link.opener) {
      const welcomed = link.initiator.acceptWelcome(data);
      if (!welcomed.ok) return k.fail(`the host's welcome does not hold: ${welcomed.error.message}`);
      link.sealer = new LinkFrameSealer(nodeLinkAead, welcomed.value.keys.send, MAX_LINK_FRAME_PLAINTEXT);
      link.opener = new LinkFrameOpener(nodeLinkAead, welcomed.value.keys.receive, MAX_LINK_FRAME_PLAINTEXT);
      return;
    }
    const plain = link.opener.open(data);
    if (!plain.ok) return k.fail(`the host sent a frame that does not open: ${plain.error.code}`);
    const message = decodeChannelMessage(plain.value);
    if (!message) return k.fail('the host sent a message that does not decode');
    if (message.t === 'ping') this.sendPlain(link, encodeChannelMessage({ t: 'pong', n: message.n }));
    else if (link.incoming.length < 256) link.incoming.push(message);
  }

  private sendPlain(link: Link, plain: Uint8Array): void {
    const frame = link.sealer?.seal(plain);
    if (frame?.ok) link.end.send(frame.value);
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
  private async register(link: Link): Promise<void> {
    const k = this.kit;
    const id = link.nextId++;
    const seed = encodeChannelMessage({ t: 'req', id, method: 'machine.register', params: this.registerParams() });
    const plain = k.chance(0.5) ? seed : k.mutate(seed);
    const seen = decodeChannelMessage(plain);
    this.sendPlain(link, plain);
    await settle();
    const answer = this.take(link, (m) => m.t === 'res' && seen?.t === 'req' && m.id === seen.id);
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
  private async machineRequest(link: Link): Promise<void> {
    const k = this.kit;
    const id = link.nextId++;
    const method = k.pick(['fs.read', 'sessions.create', 'host.info', 'exec.run', '']);
    this.sendPlain(link, encodeChannelMessage({ t: 'req', id, method, params: { path: '/etc/passwd' } }));
    await settle();
    const answer = this.take(link, (m) => m.t === 'res' && m.id === id);
    if (answer?.t !== 'res' || !('error' in answer) || answer.error.code !== 'forbidden') {
      k.fail(`a machine's ${method || 'empty'} request was not refused as forbidden`);
    }
  }

  /** An event as a machine sends it, with its fields changed. */
  private event(link: Link): void {
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
    this.sendPlain(link, k.chance(0.5) ? seed : k.mutate(seed));
  }

  /** One of the host's own calls, answered as a hostile machine likes. */
  private async hostCall(link: Link): Promise<void> {
    const k = this.kit;
    const context = this.machines.registry.context(link.name!);
    if (!context) return k.fail(`the registered machine ${link.name} has no context`);
    link.incoming.length = 0;
    const [method, call] = this.pickCall(context);
    let ended = false;
    let outcome: { ok: true; value: unknown } | { ok: false; error: { code: string } } | undefined;
    const running = call().then(
      (r) => {
        ended = true;
        outcome = r;
      },
      (error: unknown) => {
        ended = true;
        k.fail(`${method}: the host's call threw: ${describe(error)}`);
      },
    );
    await settle();
    const request = this.take(link, (m) => m.t === 'req' && m.method === method);
    if (!request || request.t !== 'req') {
      if (!ended) k.fail(`${method}: the host's call neither went out nor ended`);
      return;
    }
    const valid = RESULTS[method as MachineMethodName] ?? {};
    const roll = k.random();
    /** The result sent for this call that its schema accepts, if one was. */
    let sentResult: unknown;
    let reply: Uint8Array;
    const schema = MACHINE_METHODS[method as MachineMethodName].result;
    /** What the host makes of a result: the schema's output, or nothing when it does not pass. */
    const accepted = (result: unknown) => {
      const parsed = v.safeParse(schema, result);
      return parsed.success ? (parsed.output as unknown) : undefined;
    };
    if (roll < 0.4) {
      sentResult = accepted(valid);
      reply = encodeChannelMessage({ t: 'res', id: request.id, result: valid });
    } else if (roll < 0.7) {
      reply = k.mutate(encodeChannelMessage({ t: 'res', id: request.id, result: valid }));
      const decoded = decodeChannelMessage(reply);
      if (decoded?.t === 'res' && decoded.id === request.id && 'result' in decoded)
        sentResult = accepted(decoded.result);
    } else if (roll < 0.85) {
      const error: ProtocolError = {
        code: k.pick(['io', 'busy', 'outside-root', 'timeout', 'revoked', 'internal']),
        message: 'no',
      };
      reply = encodeChannelMessage({ t: 'res', id: request.id, error });
    } else {
      // Addressed to a call that does not exist, then a real answer.
      reply = encodeChannelMessage({ t: 'res', id: request.id + 1 + k.int(5), result: valid });
    }
    this.sendPlain(link, reply);
    await settle();
    if (!ended) {
      // What was sent did not answer it: a plain refusal does.
      this.sendPlain(link, encodeChannelMessage({ t: 'res', id: request.id, error: { code: 'io', message: 'no' } }));
      await settle();
    }
    if (!ended) {
      link.end.close(1000, 'fuzz: the call never ended');
      await settle(4);
    }
    await Promise.race([running, settle()]);
    if (!ended) return k.fail(`${method}: the host's call never ended, even when its link closed`);
    if (!outcome) return;
    k.count(`machine-link:call-${outcome.ok ? 'ok' : outcome.error.code}`);
    if (!outcome.ok) {
      if (!EXEC_CODES.has(outcome.error.code))
        k.fail(`${method}: failed with ${outcome.error.code}, not an execution code`);
      return;
    }
    if (sentResult === undefined && method !== 'proc.spawn') {
      return k.fail(`${method}: the host took an answer the machine never gave it`);
    }
    const value = method === 'fs.realPath' || method === 'fs.checkFolder' ? { path: outcome.value } : outcome.value;
    if (method !== 'proc.spawn' && JSON.stringify(value) !== JSON.stringify(sentResult)) {
      k.fail(`${method}: the host's call ended with something other than the machine's answer`);
    }
    if (method === 'proc.spawn' && outcome.ok) (outcome.value as { kill(): void }).kill();
  }

  /** The host's calls on a machine context, each named by its protocol method. */
  private pickCall(
    context: RemoteMachineContext,
  ): [string, () => Promise<{ ok: true; value: unknown } | { ok: false; error: { code: string } }>] {
    const k = this.kit;
    const signal = new AbortController().signal;
    const calls: [string, () => Promise<{ ok: true; value: unknown } | { ok: false; error: { code: string } }>][] = [
      ['fs.read', () => context.readFile('/srv/share', 'a.txt', 4096)],
      ['fs.write', () => context.writeFile('/srv/share', 'a.txt', 'x')],
      ['fs.list', () => context.listDir('/srv/share', '.', 100)],
      ['fs.realPath', () => context.realPath('/srv/share', 'a.txt')],
      ['fs.checkFolder', () => context.checkFolder('/srv/share')],
      [
        'fs.search',
        () => context.search('/srv/share', { pattern: 'x', regex: false, caseSensitive: true, maxResults: 10 }),
      ],
      ['fs.listDirs', () => context.listDirs()],
      [
        'exec.run',
        () => context.exec({ command: 'make', cwd: '/srv/share', timeoutMs: 1000, maxOutputBytes: 100, signal }),
      ],
      ['proc.spawn', () => context.spawn({ command: { program: 'make', args: [] }, cwd: '/srv/share' })],
      ['tasks.list', () => context.listTasks()],
    ];
    return k.pick(calls);
  }

  /**
   * A process whose machine sends output past its window while nobody reads it: the host kills it
   * once it holds twice the window, so a machine cannot fill the host's memory this way.
   */
  private async flood(link: Link): Promise<void> {
    const k = this.kit;
    const context = this.machines.registry.context(link.name!)!;
    const spawning = context.spawn({ command: { program: 'yes', args: [] }, cwd: '/srv/share' });
    await settle();
    const request = this.take(link, (m) => m.t === 'req' && m.method === 'proc.spawn');
    if (request?.t !== 'req') return;
    this.sendPlain(link, encodeChannelMessage({ t: 'res', id: request.id, result: {} }));
    await settle();
    const started = await spawning;
    if (!started.ok) return;
    const procId = (request.params as { procId: string }).procId;
    let ended = false;
    void started.value.exited.then(() => (ended = true));
    const chunk = toBase64Url(new Uint8Array(MAX_OUTPUT_CHUNK_BYTES));
    const most = Math.ceil((2 * OUTPUT_WINDOW_BYTES) / MAX_OUTPUT_CHUNK_BYTES) + 2;
    for (let i = 0; i < most && !ended && !link.end.closed; i++) {
      this.sendPlain(
        link,
        encodeChannelMessage({ t: 'evt', event: { type: 'proc.output', procId, stream: 'stdout', data: chunk } }),
      );
      await settle(1);
    }
    await settle();
    if (!ended && !link.end.closed) k.fail('a process past its output window was not stopped');
    k.count('machine-link:flooded');
    link.incoming.length = 0;
  }

  /** Takes the first message the host sent that `match` accepts. */
  private take(link: Link, match: (m: ChannelMessage) => boolean): ChannelMessage | undefined {
    const at = link.incoming.findIndex(match);
    if (at < 0) return undefined;
    return link.incoming.splice(at, 1)[0];
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
