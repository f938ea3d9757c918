import {
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import type { LinkPeer, MachineEvent, Result } from '@tether/shared-protocol';
import {
  MACHINE_METHODS,
  acceptMachineLink,
  isErrorCode,
  isMachineMethod,
  ok,
  openMachineLink,
  toBase64Url,
  utf8Encode,
  generateBoxKeyPair,
} from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { MachineExecutor, nodeLinkAead } from '@tether/machine';
import * as v from 'valibot';
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
  private readonly base: string;
  private readonly shared: string;
  private readonly outside: string;
  private readonly privateDir: string;
  private readonly privateFile: string;
  private readonly canary = `CANARY-${Math.random().toString(36).slice(2)}`;
  private readonly secret = `SECRET-${Math.random().toString(36).slice(2)}`;
  private readonly ptys = new FuzzPtyPort();
  private readonly executor: MachineExecutor;
  private readonly events: MachineEvent[] = [];
  /** Waiters for processes to end, by procId. */
  private readonly exits = new Map<string, () => void>();
  private readonly planted = new Set<string>();
  private guarded: { path: string; text: string; mtimeMs: number }[] = [];
  private baseListing = '';
  private outsideListing = '';
  private host: LinkPeer | undefined;
  private calls = 0;

  constructor(private readonly kit: FuzzKit) {
    this.base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-fuzz-machine-')));
    this.shared = join(this.base, 'shared');
    this.outside = join(this.base, 'outside');
    this.privateDir = join(this.shared, '.tether-private');
    this.privateFile = join(this.shared, 'id_key');
    this.plant();
    this.executor = new MachineExecutor({
      roots: [this.shared],
      privates: [this.privateDir, this.privateFile],
      tasksDir: join(this.base, 'tasks'),
      clock: new ManualClock(),
      pty: this.ptys,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.outside, SHELL: '/bin/sh' },
    });
    this.executor.attach((event) => {
      if (this.events.length < 1000) this.events.push(event);
      if (event.type === 'proc.exit') this.exits.get(event.procId)?.();
      return true;
    });
  }

  /** The shared folder and what surrounds it: a canary outside, private files inside, links out. */
  private plant(): void {
    const file = (path: string, text: string) => {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    };
    mkdirSync(this.shared, { recursive: true });
    file(join(this.outside, 'canary.txt'), `${this.canary}\n`);
    file(join(this.outside, 'canary-dir', 'x.txt'), `${this.canary} in a folder\n`);
    file(join(this.shared, 'readme.txt'), 'hello from the shared folder\n');
    file(join(this.shared, 'sub', 'a.txt'), 'alpha\nbeta\n');
    file(join(this.privateDir, 'secret.txt'), `${this.secret}\n`);
    file(this.privateFile, `${this.secret} key\n`);
    mkdirSync(join(this.shared, 'docs'), { recursive: true });
    linkSync(join(this.privateDir, 'secret.txt'), join(this.shared, 'docs', 'innocent.txt'));
    symlinkSync('../outside', join(this.shared, 'out'));
    symlinkSync('../outside/canary.txt', join(this.shared, 'canary-link'));
    symlinkSync('.tether-private/secret.txt', join(this.shared, 'secret-link'));
    symlinkSync('id_key', join(this.shared, 'key-link'));
    symlinkSync('loop', join(this.shared, 'loop'));
    mkdirSync(join(this.base, 'tasks'), { recursive: true });
    for (const path of [
      'readme.txt',
      'sub',
      'sub/a.txt',
      '.tether-private',
      '.tether-private/secret.txt',
      'id_key',
      'docs',
      'docs/innocent.txt',
      'out',
      'canary-link',
      'secret-link',
      'key-link',
      'loop',
    ]) {
      this.planted.add(join(this.shared, path));
    }
    const guard = (path: string) => {
      const info = statSync(path);
      return { path, text: readFileSync(path, 'utf8'), mtimeMs: info.mtimeMs };
    };
    this.guarded = [
      guard(join(this.outside, 'canary.txt')),
      guard(join(this.outside, 'canary-dir', 'x.txt')),
      guard(join(this.privateDir, 'secret.txt')),
      guard(this.privateFile),
    ];
    this.baseListing = listing(this.base);
    this.outsideListing = listing(this.outside);
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
    this.checkSurroundings(names.join(', '));
    this.calls += count;
    if (this.calls % 2000 < count) this.tidy();
  }

  /** One hostile call, checked; its method's name. */
  private async step(): Promise<string> {
    const k = this.kit;
    const [method, params] = this.call();
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
    if (text.includes(this.canary)) k.fail(`${method}: an answer holds the canary outside the shared folder`);
    if (text.includes(this.secret)) k.fail(`${method}: an answer holds a private file's text`);
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
        if (full === this.privateFile || full === this.privateDir) k.fail(`fs.list shows the private ${full}`);
      }
    }
  }

  /** A path the machine reports: inside the shared folder, outside the private ones. */
  private checkInside(what: string, path: string): void {
    const inside = path === this.shared || path.startsWith(this.shared + sep);
    if (!inside) this.kit.fail(`${what}: reported ${path}, outside the shared folder`);
    if (path === this.privateFile || path === this.privateDir || path.startsWith(this.privateDir + sep)) {
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

  /** The canary, the private files and the folders around the shared one, as they were. */
  private checkSurroundings(methods: string): void {
    for (const g of this.guarded) {
      let now: { text: string; mtimeMs: number };
      try {
        now = { text: readFileSync(g.path, 'utf8'), mtimeMs: statSync(g.path).mtimeMs };
      } catch (error) {
        this.kit.fail(`after ${methods}: ${g.path} is gone (${describe(error)})`);
        continue;
      }
      if (now.text !== g.text || now.mtimeMs !== g.mtimeMs) this.kit.fail(`after ${methods}: ${g.path} changed`);
    }
    if (listing(this.base) !== this.baseListing) this.kit.fail(`after ${methods}: the folder around the share changed`);
    if (listing(this.outside) !== this.outsideListing) this.kit.fail(`after ${methods}: the outside folder changed`);
  }

  /** Removes what the calls wrote inside the share (a long run would fill the disk), keeping what was planted. */
  private tidy(): void {
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (!this.planted.has(path)) rmSync(path, { recursive: true, force: true });
        else if (lstatSync(path).isDirectory()) walk(path);
      }
    };
    walk(this.shared);
  }

  /** A method and hostile params for it. */
  private call(): [string, unknown] {
    const k = this.kit;
    // Half the time a plain value, so calls get past the first check and reach the later ones.
    const root = () => (k.chance(0.5) ? this.shared : k.pick(this.roots()));
    const path = () =>
      k.chance(0.5) ? k.pick(['readme.txt', 'sub/a.txt', 'sub', '.', 'docs', 'new.txt']) : k.pick(this.paths());
    const id = () => k.pick(['p_1', 'p_2', `p_${k.int(1000)}`, '', 'x'.repeat(300), '../p']);
    const roll = k.random();
    if (roll < 0.2)
      return [
        'fs.read',
        {
          root: root(),
          path: path(),
          maxBytes: k.chance(0.9) ? k.pick([0, 10, 4096, 2 * 1024 * 1024]) : k.pick([-1, 1.5, 1e12]),
        },
      ];
    if (roll < 0.3) return ['fs.write', { root: root(), path: path(), text: k.pick(['fuzz', '', 'x\n'.repeat(50)]) }];
    if (roll < 0.42)
      return ['fs.list', { root: root(), path: path(), maxEntries: k.chance(0.9) ? k.pick([1, 100, 10_000]) : 0 }];
    if (roll < 0.52) return ['fs.stat', { root: root(), path: path() }];
    if (roll < 0.64) return ['fs.realPath', { root: root(), path: path() }];
    if (roll < 0.72) return ['fs.checkFolder', { path: root() }];
    if (roll < 0.8) {
      const query = {
        pattern: k.pick(['CANARY', 'SECRET', 'alpha', '.', '(a+)+$', '[']),
        regex: k.chance(0.5),
        caseSensitive: k.chance(0.5),
        ...(k.chance(0.5) ? { path: path() } : {}),
        maxResults: k.pick([1, 100, 10_000]),
      };
      return ['fs.search', { root: root(), query }];
    }
    if (roll < 0.88) return ['fs.listDirs', k.chance(0.2) ? {} : { path: root() }];
    if (roll < 0.9) return ['machine.ping', k.chance(0.5) ? {} : { x: 1 }];
    if (roll < 0.93)
      return [
        'pty.spawn',
        {
          ptyId: id(),
          ...(k.chance(0.7) ? { cwd: k.pick([...this.roots(), ...this.paths()]) } : {}),
          cols: 80,
          rows: 24,
        },
      ];
    if (roll < 0.95)
      return [
        k.pick([
          'proc.write',
          'proc.kill',
          'proc.closeInput',
          'pty.write',
          'pty.resize',
          'pty.kill',
          'exec.cancel',
          'tasks.kill',
          'tasks.read',
        ]),
        {
          procId: id(),
          ptyId: id(),
          callId: id(),
          taskId: id(),
          data: toBase64Url(k.bytes(8)),
          cols: 10,
          rows: 10,
          offset: 0,
          maxBytes: 10,
        },
      ];
    // Commands are few: each starts a real process (`pwd`, to see where it ran).
    if (roll < 0.955) return ['tasks.list', {}];
    if (roll < 0.96)
      return [
        'exec.run',
        { callId: `x_${k.int(1e9)}`, command: 'pwd', cwd: root(), timeoutMs: 5000, maxOutputBytes: 4096 },
      ];
    if (roll < 0.965)
      return [
        'proc.spawn',
        {
          procId: `p_${k.int(1e9)}`,
          command: k.chance(0.5) ? { program: 'pwd', args: [] } : { shell: 'pwd' },
          cwd: k.pick([...this.roots(), ...this.paths()]),
          ...(k.chance(0.5) ? { root: root() } : {}),
        },
      ];
    if (roll < 0.967) return ['tasks.start', { command: 'pwd', cwd: root() }];
    return [k.pick(['fs.delete', 'machine.register', '__proto__', 'constructor', 'toString', '']), {}];
  }

  /** Roots a hostile host might name: the share, inside it, through a link out, outside, odd text. */
  private roots(): string[] {
    const s = this.shared;
    return [
      s,
      s,
      s,
      join(s, 'sub'),
      join(s, 'out'),
      join(s, 'out', 'canary-dir'),
      this.outside,
      this.base,
      '/',
      '/etc',
      this.privateDir,
      join(s, 'docs'),
      join(s, 'loop'),
      `${s}/../outside`,
      'shared',
      '',
      `${s}\u0000`,
      join(s, 'sub', '..', '..'),
    ];
  }

  private paths(): string[] {
    const s = this.shared;
    return [
      'readme.txt',
      'sub/a.txt',
      'sub',
      '.',
      '',
      '../outside/canary.txt',
      join(this.outside, 'canary.txt'),
      'out/canary.txt',
      'out',
      'out/canary-dir/x.txt',
      'canary-link',
      'secret-link',
      'key-link',
      '.tether-private/secret.txt',
      '.tether-private',
      'id_key',
      'docs/innocent.txt',
      'docs',
      'loop',
      'loop/x',
      'sub/../../outside/canary.txt',
      '/etc/passwd',
      'a\u0000b',
      'x'.repeat(5000),
      '~/.ssh/id_rsa',
      'sub/./a.txt',
      'new/dir/file.txt',
      'out/new.txt',
      'canary-link/x',
      join(s, 'readme.txt'),
      join(s, 'id_key'),
      'SUB/A.TXT',
      'sub\\a.txt',
      '..',
      '../',
      '../..',
      'ü/ñ.txt',
      '.tether-private/../id_key',
      'docs/../.tether-private/secret.txt',
    ];
  }

  close(): void {
    void this.executor.close();
    this.host?.close();
    rmSync(this.base, { recursive: true, force: true });
  }
}

/** A folder's entries, sorted, as one string. */
function listing(dir: string): string {
  return readdirSync(dir).sort().join('\n');
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
