import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dispatch, Result } from '@tether/shared-protocol';
import { MACHINE_METHODS, createDispatch, secureRandom, toBase64Url } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalContext } from '../local-context.js';
import { FakePtyPort } from '../terminal/fake-pty.js';
import { BackgroundTasks } from './background-tasks.js';
import { LiveProcesses } from './live-processes.js';
import { LivePtys } from './live-ptys.js';
import { machineHandlers } from './machine-handlers.js';
import { privatePaths } from '../private-paths.js';

// The machine's handler table on its own, behind the typed dispatch (no link): every method of
// the table has a handler, params are decoded before a handler runs, and every file operation
// goes through the one confined LocalContext.

let base: string;
let home: string;
let code_: string;
let swap: ((path: string) => void) | undefined;
let tasks: BackgroundTasks;
let processes: LiveProcesses;
let dispatch: Dispatch<void>;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-handlers-')));
  home = join(base, 'home');
  code_ = join(home, 'code');
  for (const dir of [join(code_, 'src'), join(base, 'outside'), join(home, '.ssh')])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(code_, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(code_, 'notes.txt'), 'notes');
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  symlinkSync(join(base, 'outside'), join(code_, 'out'));
  const clock = new ManualClock();
  const privates = privatePaths({ env: {}, home });
  swap = undefined;
  const context = new LocalContext({
    roots: [code_],
    privates,
    beforeOpen: (path) => {
      swap?.(path);
      return Promise.resolve();
    },
  });
  const start = context.spawn.bind(context);
  processes = new LiveProcesses(start, () => undefined);
  tasks = new BackgroundTasks({
    dir: join(base, 'tasks'),
    clock,
    newId: () => `t_${toBase64Url(secureRandom(9))}`,
    start,
  });
  const handlers = machineHandlers({
    context,
    roots: [code_],
    processes,
    ptys: new LivePtys(new FakePtyPort(), () => undefined, 2),
    tasks,
    clock,
    env: {},
    calls: new Map(),
  });
  dispatch = createDispatch(MACHINE_METHODS, handlers);
});

afterEach(async () => {
  processes.killAll();
  await tasks.close();
  rmSync(base, { recursive: true, force: true });
});

const call = (method: string, params: unknown) => dispatch(method, params, undefined);
const code = (r: Result<unknown>) => (r.ok ? 'ok' : r.error.code);

describe('the machine handler table', () => {
  it('has a handler for every method of the machine link', () => {
    const handlers = machineHandlers({} as Parameters<typeof machineHandlers>[0]);
    expect(Object.keys(handlers).sort()).toEqual(Object.keys(MACHINE_METHODS).sort());
  });

  it('refuses an unknown method and params the schema refuses, before any handler runs', async () => {
    expect(code(await call('fs.delete', { path: '/' }))).toBe('unknown-method');
    expect(code(await call('fs.read', { root: code_, path: 5, maxBytes: 10 }))).toBe('invalid-params');
    expect(code(await call('fs.read', { root: code_, path: 'notes.txt', maxBytes: -1 }))).toBe('invalid-params');
  });

  it('serves the file operations inside the shared root', async () => {
    // The bytes as they are: they travel as body frames, and the host decodes them.
    const read = await call('fs.read', { root: code_, path: 'src/a.ts', maxBytes: 1000 });
    const value = read.ok ? (read.value as { body: Uint8Array; size: number }) : undefined;
    expect(value && { ...value, body: Buffer.from(value.body).toString() }).toEqual({
      body: 'export const a = 1;\n',
      size: 20,
    });
    const written = await call('fs.write', { root: code_, path: 'new/b.ts', text: 'b' });
    expect(written).toEqual({ ok: true, value: { created: true, path: join(code_, 'new', 'b.ts') } });
    const stat = await call('fs.stat', { root: code_, path: 'notes.txt' });
    expect(stat.ok && stat.value).toMatchObject({ type: 'file', size: 5 });
    const listed = await call('fs.list', { root: code_, path: '.', maxEntries: 100 });
    expect(listed.ok && (listed.value as { entries: { name: string }[] }).entries.map((e) => e.name)).toEqual([
      'new',
      'src',
      'notes.txt',
      'out',
    ]);
    expect(await call('fs.realPath', { root: code_, path: 'src/../notes.txt' })).toEqual({
      ok: true,
      value: { path: join(code_, 'notes.txt') },
    });
    expect(await call('fs.checkFolder', { path: join(code_, 'src') })).toEqual({
      ok: true,
      value: { path: join(code_, 'src') },
    });
    const dirs = await call('fs.listDirs', {});
    expect(dirs.ok && dirs.value).toEqual({
      path: null,
      parent: null,
      dirs: [{ name: 'code', path: code_ }],
      truncated: false,
    });
  });

  it('refuses every folder outside the shared roots, whichever method names it', async () => {
    const outside = join(base, 'outside');
    expect(code(await call('fs.checkFolder', { path: outside }))).toBe('outside-root');
    expect(code(await call('fs.checkFolder', { path: 'relative' }))).toBe('outside-root');
    expect(code(await call('fs.read', { root: outside, path: 'x', maxBytes: 10 }))).toBe('outside-root');
    expect(code(await call('fs.read', { root: code_, path: 'out/x', maxBytes: 10 }))).toBe('outside-root');
    expect(code(await call('fs.listDirs', { path: join(code_, 'out') }))).toBe('outside-root');
    expect(
      code(
        await call('fs.search', {
          root: home,
          query: { pattern: 'a', regex: false, caseSensitive: false, maxResults: 10 },
        }),
      ),
    ).toBe('outside-root');
    const run = { callId: 'c1', command: 'pwd', cwd: outside, timeoutMs: 5000, maxOutputBytes: 1000 };
    expect(code(await call('exec.run', run))).toBe('outside-root');
    expect(code(await call('tasks.start', { command: 'true', cwd: outside }))).toBe('outside-root');
    expect(code(await call('proc.spawn', { procId: 'p1', command: { shell: 'true' }, cwd: outside }))).toBe(
      'outside-root',
    );
    expect(code(await call('pty.spawn', { ptyId: 'y1', cwd: outside, cols: 80, rows: 24 }))).toBe('outside-root');
  });

  it('refuses to describe a file swapped for a hard link to a private file after its check', async () => {
    swap = (path) => {
      if (path !== join(code_, 'notes.txt')) return;
      unlinkSync(path);
      linkSync(join(home, '.ssh', 'id_ed25519'), path);
    };
    expect(code(await call('fs.stat', { root: code_, path: 'notes.txt' }))).toBe('outside-root');
  });

  it('runs a command in a folder of the root', async () => {
    const run = { callId: 'c2', command: 'pwd', cwd: join(code_, 'src'), timeoutMs: 5000, maxOutputBytes: 1000 };
    const result = await call('exec.run', run);
    expect(result.ok && (result.value as { output: string }).output.trim()).toBe(join(code_, 'src'));
  });
});
