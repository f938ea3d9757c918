import { realpathSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { LinkPeer, MachineEvent, Result } from '@tether/shared-protocol';
import {
  MACHINE_METHODS,
  acceptMachineLink,
  isErrorCode,
  isMachineMethod,
  ok,
  openMachineLink,
  utf8Encode,
  generateBoxKeyPair,
} from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { MachineExecutor, nodeLinkAead } from '@tether/machine';
import * as v from 'valibot';
import { hostileCall } from './executor-calls.js';
import { ExecutorWorld } from './executor-world.js';
import type { FuzzKit } from './fuzz-kit.js';
import { describe } from './fuzz-kit.js';
import { fuzzPipe } from './fuzz-pipe.js';
import { FuzzPtyPort } from './fuzz-pty.js';

/**
 * Hostile calls from a "host" to a machine's executor, over a real confined folder: every method
 * of the machine protocol with paths that lead out (`..`, absolute, through links to a folder and
 * a file outside, a link loop), into the machine's private list (a private folder, a private file,
 * a link to one, a hard link to one under an innocent name), and params that are the wrong shape
 * or mutated JSON. Calls go to the executor directly and, one in five, through a sealed link.
 *
 * The oracle: a call answers (never throws) with a result its method's schema accepts or an
 * error with a stable code; no answer ever holds the canary outside the folder or a private
 * file's text; a path the machine reports is inside the folder and not private; a command's
 * working folder is inside it; and after every call the canary, the private files and the
 * folders around the shared one are exactly as they were.
 */
export class ExecutorTarget {
  private readonly world = new ExecutorWorld();
  private readonly ptys = new FuzzPtyPort();
  private readonly executor: MachineExecutor;
  private readonly events: MachineEvent[] = [];
  /** Waiters for processes to end, by procId. */
  private readonly exits = new Map<string, () => void>();
  private host: LinkPeer | undefined;
  private calls = 0;

  constructor(private readonly kit: FuzzKit) {
    const world = this.world;
    this.executor = new MachineExecutor({
      roots: [world.shared],
      privates: [world.privateDir, world.privateFile],
      tasksDir: world.tasksDir,
      clock: new ManualClock(),
      pty: this.ptys,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: world.outside, SHELL: '/bin/sh' },
    });
    this.executor.attach((event) => {
      if (this.events.length < 1000) this.events.push(event);
      if (event.type === 'proc.exit') this.exits.get(event.procId)?.();
      return true;
    });
  }

  /** A sealed link to the executor, as a machine agent serves it. */
  async open(): Promise<void> {
    const clock = new ManualClock();
    const [machineEnd, hostEnd] = fuzzPipe((what) => this.kit.fail(what));
    const random = this.kit.bytes;
    const [host, machine] = await Promise.all([
      acceptMachineLink(hostEnd, { clock, random, aead: nodeLinkAead, hostKeys: generateBoxKeyPair(random) }),
      openMachineLink(machineEnd, { clock, random, aead: nodeLinkAead, checkHostKey: () => ok(undefined) }),
    ]);
    if (!host.ok || !machine.ok) throw new Error('the fuzzer could not open a machine link');
    const peer = machine.value.peer;
    peer.onRequest = (method, params) => this.executor.handle(method, params);
    peer.onEvent = (event) => this.executor.event(event);
    this.host = host.value;
  }

  /**
   * `count` hostile calls at once (a host sends several; the file system answers from its own
   * threads, so one call at a time would leave the run mostly waiting), each checked, then the
   * surroundings.
   */
  async batch(count: number): Promise<void> {
    const names = await Promise.all(Array.from({ length: count }, () => this.step()));
    for (const change of this.world.check(names.join(', '))) this.kit.fail(change);
    this.calls += count;
    if (this.calls % 2000 < count) this.world.tidy();
  }

  /** One hostile call, checked; its method's name. */
  private async step(): Promise<string> {
    const k = this.kit;
    const [method, params] = hostileCall(k, this.world);
    let sent: unknown = params;
    if (k.chance(0.25)) {
      // The params' JSON changed a little; when it no longer parses, the link would refuse it, so
      // the text itself goes as the params (the wrong shape).
      const text = new TextDecoder().decode(k.mutate(utf8Encode(JSON.stringify(params))));
      try {
        sent = JSON.parse(text) as unknown;
      } catch {
        sent = text;
      }
    }
    const name = k.chance(0.03) ? new TextDecoder().decode(k.mutate(utf8Encode(method))) : method;
    // A request the link cannot decode (a mangled method name) is skipped there unanswered, as the
    // protocol says: only well-named ones go that way.
    const viaLink = name === method && this.host !== undefined && !this.host.closed && k.chance(0.2);
    let result: Result<unknown>;
    try {
      result = await k.waiting(
        `${name} ${viaLink ? 'through the link' : 'at the executor'}`,
        viaLink ? this.host!.request(name, sent) : this.executor.handle(name, sent),
      );
    } catch (error) {
      k.fail(`${name} threw: ${describe(error)}`);
      return name;
    }
    k.count(`machine:${isMachineMethod(name) ? name : 'unknown'}:${result.ok ? 'ok' : result.error.code}`);
    this.checkResult(name, result, sent);
    await k.waiting(`what ${name} left behind`, this.afterwards(name, sent, result));
    return name;
  }

  private checkResult(method: string, result: Result<unknown>, params: unknown): void {
    const k = this.kit;
    if (!result.ok) {
      const code: unknown = result.error.code;
      if (typeof code !== 'string' || !isErrorCode(code))
        k.fail(`${method}: refused with an unknown code ${String(code)}`);
      if (typeof result.error.message !== 'string') k.fail(`${method}: refused without a message`);
      return;
    }
    if (!isMachineMethod(method)) return k.fail(`${method}: an unknown method answered ok`);
    const checked = v.safeParse(MACHINE_METHODS[method].result, result.value);
    if (!checked.success) k.fail(`${method}: its result does not match its schema`);
    const text = JSON.stringify(result.value);
    if (text.includes(this.world.canary)) k.fail(`${method}: an answer holds the canary outside the shared folder`);
    if (text.includes(this.world.secret)) k.fail(`${method}: an answer holds a private file's text`);
    const path = (result.value as { path?: unknown }).path;
    if (
      (method === 'fs.realPath' || method === 'fs.checkFolder' || method === 'fs.write') &&
      typeof path === 'string'
    ) {
      this.checkInside(method, path);
    }
    if (method === 'fs.list') {
      // The folder listed, by real path (the call succeeded, so it resolves): no private entry in it.
      const { root, path: within } = params as { root: string; path: string };
      let folder: string;
      try {
        folder = realpathSync(resolve(root, within));
      } catch {
        return;
      }
      for (const entry of (result.value as { entries: { name: string }[] }).entries) {
        const full = join(folder, entry.name);
        if (full === this.world.privateFile || full === this.world.privateDir)
          k.fail(`fs.list shows the private ${full}`);
      }
    }
  }

  /** A path the machine reports: inside the shared folder, outside the private ones. */
  private checkInside(what: string, path: string): void {
    const { shared, privateDir, privateFile } = this.world;
    const inside = path === shared || path.startsWith(shared + sep);
    if (!inside) this.kit.fail(`${what}: reported ${path}, outside the shared folder`);
    if (path === privateFile || path === privateDir || path.startsWith(privateDir + sep)) {
      this.kit.fail(`${what}: reported the private ${path}`);
    }
  }

  /** What a started command or terminal did: where it ran. */
  private async afterwards(method: string, params: unknown, result: Result<unknown>): Promise<void> {
    if (!result.ok) return;
    if (method === 'exec.run') {
      const { output, exitCode } = result.value as { output: string; exitCode: number | null };
      // Only `pwd` that ran as sent and succeeded prints its folder: a mutated command prints
      // whatever it prints (`sh: 1: pwdr: not found`), which says nothing about where it ran.
      if (ranPwd(params) && exitCode === 0) this.checkInside('exec.run ran in', output.trim());
    } else if (method === 'pty.spawn') {
      if (this.ptys.last) this.checkInside('pty.spawn ran in', this.ptys.last.cwd);
      this.ptys.endAll();
    } else if (method === 'proc.spawn') {
      const procId = (params as { procId: string }).procId;
      if (!this.events.some((e) => e.type === 'proc.exit' && e.procId === procId)) {
        let timer: NodeJS.Timeout | undefined;
        const exited = await new Promise<boolean>((done) => {
          this.exits.set(procId, () => done(true));
          timer = setTimeout(() => done(false), 60_000);
        });
        clearTimeout(timer);
        this.exits.delete(procId);
        if (!exited) this.kit.fail('a process started by proc.spawn did not end within 60 s');
      }
      const output = this.events
        .filter(
          (e): e is Extract<MachineEvent, { type: 'proc.output' }> => e.type === 'proc.output' && e.procId === procId,
        )
        .map((e) => Buffer.from(e.data, 'base64url').toString('utf8'))
        .join('')
        .trim();
      const exit = this.events.find(
        (e): e is Extract<MachineEvent, { type: 'proc.exit' }> => e.type === 'proc.exit' && e.procId === procId,
      );
      if (ranPwd(params) && exit?.code === 0) this.checkInside('proc.spawn ran in', output);
      for (let i = this.events.length - 1; i >= 0; i--) {
        const e = this.events[i]!;
        if ('procId' in e && e.procId === procId) this.events.splice(i, 1);
      }
    } else if (method === 'tasks.start') {
      const task = (result.value as { task: { id: string; cwd: string } }).task;
      this.checkInside('tasks.start ran in', task.cwd);
      await this.executor.handle('tasks.wait', { taskId: task.id, timeoutMs: 2000 });
    }
  }

  close(): void {
    void this.executor.close();
    this.host?.close();
    this.world.close();
  }
}

/** Whether the params a command was started with (as sent, maybe mutated) name exactly `pwd`. */
function ranPwd(params: unknown): boolean {
  if (typeof params !== 'object' || params === null) return false;
  const command = (params as { command?: unknown }).command;
  if (command === 'pwd') return true;
  if (typeof command !== 'object' || command === null) return false;
  const { program, args, shell } = command as { program?: unknown; args?: unknown; shell?: unknown };
  return shell === 'pwd' || (program === 'pwd' && Array.isArray(args) && args.length === 0);
}
