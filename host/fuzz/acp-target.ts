import type { ExecutionContext, ProcessHandle, SpawnRequest } from '@tether/machine';
import { LocalContext } from '@tether/machine';
import type { Result, SessionEventBody } from '@tether/shared-protocol';
import { MAX_ACTION_TEXT, decodeEvent, ok } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { resolve } from 'node:path';
import type { ApprovalGate, GateOutcome, GateRequest } from '../src/sessions/approval-gate.js';
import type { RunContext } from '../src/sessions/session-backend.js';
import { AcpConnection } from '../src/sessions/acp/acp-connection.js';
import { envText } from '../src/sessions/acp/acp-command-env.js';
import { shellWords } from '../src/sessions/acp/acp-permission.js';
import { AcpTurn } from '../src/sessions/acp/acp-turn.js';
import type { SessionRecord } from '../src/store/session-store.js';
import { AcpMessages } from './acp-messages.js';
import { AcpWorld } from './acp-world.js';
import type { FuzzKit } from './fuzz-kit.js';
import { settle } from './fuzz-kit.js';
import { FuzzProcess } from './fuzz-process.js';

const ACP_SESSION = 'acp-fuzz-1';
/** Messages sent before waiting for the client's answers. */
const AT_ONCE = 8;
/**
 * Milliseconds to wait for every answer before a request counts as never answered: every answer
 * here comes at once (the gate, the file system, processes that end at once), so this only has to
 * outlast a machine starved by other work; a run on a busy two-core machine once took over 10 s.
 */
const MAX_WAIT_MS = 60_000;

/** What the gate allowed in one run and nothing has used yet. */
interface Allowed {
  /** Commands: the line, its variables (as `envText` shows them) and its folder. */
  commands: { command: string; env: string; cwd: string }[];
  /** Files it allowed to be written. */
  writes: number;
}

/**
 * A hostile ACP agent against Tether's client side, in-process: the real AcpConnection (the SDK's
 * client over the agent's stdin and stdout, here an in-memory process) attached to a real AcpTurn
 * whose run has a confined LocalContext over a real folder (commands are intercepted: they are
 * checked and recorded, never run) and an approval gate that answers at random and counts.
 *
 * The oracle: nothing throws and no rejection goes unhandled; every request is answered, with a
 * result or a JSON-RPC error; a permission answer names one of the options offered;
 * no answer holds the canary outside the folder or a private file's text; the canary, the private
 * files and the folders around the session one never change; no command starts unless the gate
 * allowed exactly that command line, variables and folder (asked for it, or for the permission
 * request it carries out), and no file is written beyond what the gate allowed; what the gate is
 * shown is whole (the command and every variable in it) and short enough to show; and every event
 * appended to the log passes shared-protocol's event schema.
 */
export class AcpTarget {
  private readonly world = new AcpWorld();
  private readonly clock = new ManualClock();
  private readonly local: LocalContext;
  private readonly messages: AcpMessages;
  private process: FuzzProcess | undefined;
  private connection: AcpConnection | undefined;
  private turn: AcpTurn | undefined;
  private nextId = 1;
  private ids = 0;
  private seq = 0;
  /** Requests sent and not yet answered, with what each was. */
  private readonly waiting = new Map<number, { method: string; params: unknown }>();
  private inputBuffer = '';
  private spawns = 0;
  private gateAsks = 0;

  constructor(private readonly k: FuzzKit) {
    this.local = new LocalContext({ privates: [this.world.privateDir, this.world.privateFile] });
    this.messages = new AcpMessages(k, this.world, () => (k.chance(0.9) ? ACP_SESSION : k.pick(['other', ''])));
  }

  /** Starts the agent's connection and a run's turn, when there is none. */
  private async ready(): Promise<void> {
    if (this.connection && !this.connection.isEnded && this.process && !this.process.isEnded) {
      if (!this.turn || this.turn.isClosed) this.newTurn();
      return;
    }
    const process = new FuzzProcess();
    process.onInput = (chunk) => this.fromClient(chunk);
    const agentPlace = { place: 'local', spawn: () => Promise.resolve(ok(process as ProcessHandle)) };
    const started = await AcpConnection.start({
      context: agentPlace as unknown as ExecutionContext,
      spec: { name: 'fuzz', title: 'Fuzz', command: 'fuzz-agent', args: [], env: {}, passEnv: [], allowEnv: [] },
      cwd: this.world.session,
      env: {},
      clock: this.clock,
    });
    if (!started.ok) throw new Error(started.message);
    this.process = process;
    this.connection = started.value;
    this.waiting.clear();
    this.inputBuffer = '';
    this.newTurn();
  }

  /** A new run: its turn attached, its grants (and so what the oracle allows) starting empty. */
  private newTurn(): void {
    this.turn?.close('the fuzzer started another run');
    this.turn = new AcpTurn(this.run(), { title: 'Fuzz' });
    this.connection!.attach(ACP_SESSION, this.turn);
  }

  /** `AT_ONCE` messages from the agent, then every answer checked. */
  async step(): Promise<number> {
    const k = this.k;
    await this.ready();
    const process = this.process!;
    const sent: string[] = [];
    for (let i = 0; i < AT_ONCE; i++) {
      const id = this.nextId++;
      const message = this.messages.next(id);
      const value = {
        jsonrpc: '2.0',
        ...(message.request ? { id } : {}),
        method: message.method,
        params: message.params,
      };
      let line = JSON.stringify(value);
      const roll = k.random();
      // Mutated only when small: a mutation copies the line byte by byte.
      if (roll < 0.15 && line.length < 8192)
        line = new TextDecoder().decode(k.mutate(new TextEncoder().encode(line))).replaceAll('\n', ' ');
      else if (roll < 0.16) line = k.pick(['', 'not json', '[1,2]', '{"jsonrpc":"2.0","id":999999,"result":{}}', '5']);
      else if (message.request) this.waiting.set(id, { method: message.method, params: message.params });
      process.emit(new TextEncoder().encode(`${line}\n`));
      k.count(`acp:${message.method || 'empty'}`);
      sent.push(`${message.method || 'empty'} (${line.length} bytes)`);
    }
    // File requests wait on the file system's threads: the deadline is wall time, not turns.
    const started = Date.now();
    const deadline = started + MAX_WAIT_MS;
    while (this.waiting.size > 0 && !process.isEnded) {
      if (Date.now() > deadline) {
        const left = [...this.waiting.values()]
          .map((w) => `${w.method} ${JSON.stringify(w.params).slice(0, 600)}`)
          .join(', ');
        k.fail(`requests never answered: ${left}`);
        this.waiting.clear();
        break;
      }
      await settle(1);
    }
    const took = Date.now() - started;
    if (took > this.slowest.ms) this.slowest = { ms: took, methods: sent.join(', ') };
    const changed = this.world.check();
    if (changed.length > 0) k.fail(`changed by the agent's requests: ${changed.join(', ')}`);
    if (k.chance(0.002)) this.turn?.close('the fuzzer ended the run');
    if (k.chance(0.0005)) process.exit(1, null);
    return AT_ONCE;
  }

  /** The client's lines to the agent: answers to its requests, and its own requests. */
  private fromClient(chunk: Uint8Array): void {
    this.inputBuffer += new TextDecoder().decode(chunk);
    let at: number;
    while ((at = this.inputBuffer.indexOf('\n')) >= 0) {
      const line = this.inputBuffer.slice(0, at);
      this.inputBuffer = this.inputBuffer.slice(at + 1);
      this.answer(line);
    }
  }

  private answer(line: string): void {
    const k = this.k;
    let message: { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown }; method?: unknown };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return k.fail(`the client wrote a line that is not JSON: ${line.slice(0, 100)}`);
    }
    if (typeof message.method === 'string') return; // the client's own request (initialize and the like)
    if (message.error !== undefined) {
      if (!Number.isInteger(message.error.code) || typeof message.error.message !== 'string') {
        k.fail(`a JSON-RPC error without an integer code and a message: ${line.slice(0, 200)}`);
      }
    }
    if (typeof message.id !== 'number') return; // an answer to a line that was not a request
    const request = this.waiting.get(message.id);
    // Answers to lines that were not tracked requests (mutated ones) land here too.
    if (!request) return;
    this.waiting.delete(message.id);
    k.count(`acp-answer:${request.method}:${message.error ? String(message.error.code) : 'ok'}`);
    if (this.world.leaks(line)) k.fail(`${request.method}: an answer holds the canary or a private file's text`);
    if (request.method === 'session/request_permission' && message.result) {
      const outcome = (message.result as { outcome?: { outcome?: string; optionId?: string } }).outcome;
      const offered = ((request.params as { options?: { optionId?: string }[] }).options ?? []).map((o) => o.optionId);
      if (outcome?.outcome === 'selected' && !offered.includes(outcome.optionId)) {
        k.fail('a permission answer picked an option the agent never offered');
      }
    }
    if (request.method === 'terminal/create' && message.result) {
      const id = (message.result as { terminalId?: unknown }).terminalId;
      if (typeof id === 'string') {
        this.messages.terminals.push(id);
        if (this.messages.terminals.length > 32) this.messages.terminals.shift();
      }
    }
  }

  /** The run the turn belongs to: its log checked event by event, its gate and context watched. */
  private run(): RunContext {
    const cwd = this.world.session;
    const record = { id: 's_fuzz', cwd, autoApprove: false, allowRules: [] } as unknown as SessionRecord;
    // What the gate allowed in this run, as its grants are: a request of an earlier run still
    // under way (a mutated one, not waited for) uses what that run allowed.
    const allowed: Allowed = { commands: [], writes: 0 };
    const gate = {
      ask: (request: GateRequest) => Promise.resolve(this.ask(request, allowed)),
    } as unknown as ApprovalGate;
    return {
      sessionId: 's_fuzz',
      record: () => record,
      append: (body) => this.append(body),
      takeQueued: () => [],
      gate,
      context: this.context(allowed),
      clock: this.clock,
      newId: (prefix) => `${prefix}_${++this.ids}`,
      signal: new AbortController().signal,
    };
  }

  private append(body: SessionEventBody): void {
    const event = decodeEvent({ ...body, sessionId: 's_fuzz', seq: ++this.seq, at: this.clock.now() });
    if (event.kind !== 'event')
      this.k.fail(`an event the schema refuses (${event.kind}): ${JSON.stringify(body).slice(0, 300)}`);
    if (this.world.leaks(JSON.stringify(body))) this.k.fail("an event holds the canary or a private file's text");
    this.k.count(`event:${body.type}`);
  }

  /** The gate: checks what it is shown, answers at random, and remembers what it allowed. */
  private ask(request: GateRequest, allowed: Allowed): GateOutcome {
    const k = this.k;
    this.gateAsks++;
    const need = request.need;
    if (need.action.length > MAX_ACTION_TEXT)
      k.fail(`the gate was asked with an action of ${need.action.length} characters`);
    if (need.kind === 'shell') {
      if (need.command === undefined || !need.action.includes(need.command))
        k.fail('a command asked for is not shown whole');
      for (const [name, value] of Object.entries(need.env ?? {})) {
        if (!need.action.includes(`${name}=`) || !need.action.includes(value.slice(0, 1000))) {
          k.fail(`a command's variable ${name} is not shown with it`);
        }
      }
    }
    const roll = k.random();
    const outcome: GateOutcome =
      roll < 0.45
        ? { allowed: true, by: 'person', decision: 'allow-once' }
        : roll < 0.55
          ? { allowed: true, by: 'person', decision: 'allow-session' }
          : roll < 0.6
            ? { allowed: true, by: 'rule' }
            : roll < 0.95
              ? { allowed: false, reason: 'denied' }
              : { allowed: false, reason: 'cancelled' };
    k.count(`gate:${need.kind}:${outcome.allowed ? 'allowed' : outcome.reason}`);
    if (!outcome.allowed) return outcome;
    if (need.kind === 'shell' && need.command !== undefined) {
      allowed.commands.push({
        command: need.command,
        env: envText(need.env ?? {}),
        cwd: need.cwd ?? this.world.session,
      });
    }
    if (need.kind === 'write' || need.kind === 'edit') {
      // A permission request allows each diff it shows ("create …"/"change …" lines); a write asked for alone, one.
      const diffs = need.action.split('\n').filter((l) => l.startsWith('create ') || l.startsWith('change ')).length;
      allowed.writes += request.tool === 'write_file' ? 1 : diffs;
    }
    return outcome;
  }

  /** The session's place: the real confined context, with commands checked and never run. */
  private context(allowed: Allowed): ExecutionContext {
    const local = this.local;
    const spawn = (request: SpawnRequest): Promise<Result<ProcessHandle, never>> => {
      this.spawns++;
      const line =
        'shell' in request.command
          ? request.command.shell
          : shellWords([request.command.program, ...request.command.args]);
      const env = envText(request.env ?? {});
      const cwd = resolve(request.root ?? this.world.session, request.cwd);
      const at = allowed.commands.findIndex((a) => a.command === line && a.env === env && resolve(a.cwd) === cwd);
      if (at < 0) this.k.fail(`a command ran without the gate allowing it: ${line.slice(0, 200)}`);
      else allowed.commands.splice(at, 1);
      if (request.root !== undefined && resolve(request.root) !== this.world.session)
        this.k.fail('a command was confined to another folder');
      const process = new FuzzProcess();
      queueMicrotask(() => {
        process.emit(new TextEncoder().encode('output\n'));
        process.exit(0);
      });
      return Promise.resolve(ok(process));
    };
    const writeFile: ExecutionContext['writeFile'] = async (root, path, text) => {
      const written = await local.writeFile(root, path, text);
      if (written.ok) {
        if (allowed.writes <= 0) this.k.fail(`a file was written without the gate allowing it: ${path.slice(0, 200)}`);
        else allowed.writes--;
      }
      return written;
    };
    return {
      place: 'local',
      home: undefined,
      exec: () => Promise.reject(new Error('an ACP turn does not run commands to their end')),
      spawn,
      checkFolder: (path) => local.checkFolder(path),
      realPath: (root, path) => local.realPath(root, path),
      readFile: (root, path, max) => local.readFile(root, path, max),
      writeFile,
      stat: (root, path) => local.stat(root, path),
      listDir: (root, path, max) => local.listDir(root, path, max),
      search: (root, query) => local.search(root, query),
    };
  }

  /** The slowest batch, for the summary: how long its answers took, and what it held. */
  private slowest = { ms: 0, methods: '' };

  get summary(): string {
    return `gate asked ${this.gateAsks} times, ${this.spawns} commands started; slowest batch ${this.slowest.ms} ms: ${this.slowest.methods}`;
  }

  async close(): Promise<void> {
    this.turn?.close('the run ended');
    this.connection?.kill();
    this.process?.exit(0);
    await settle();
    this.world.close();
  }
}
