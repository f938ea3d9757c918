import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LinkPeer } from '@tether/shared-protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { code, linkTo } from './testing/link-harness.js';
import { MachineExecutor } from './machine-executor.js';
import { privatePaths } from '../private-paths.js';
import { checkSharedRoots } from './shared-roots.js';

// The machine never trusts the host past its shared folders. Every case goes over the wire: a
// sealed link on an in-memory pipe, the machine's real schemas and executor, real files.

let base: string;
let home: string;
let code_: string;
let outside: string;
let dataDir: string;
let tokenFile: string;
let host: LinkPeer;
let executor: MachineExecutor;
let swap: ((path: string) => void) | undefined;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-confine-')));
  home = join(base, 'home');
  code_ = join(home, 'code');
  outside = join(base, 'outside');
  dataDir = join(code_, '.machine-data');
  tokenFile = join(code_, 'token.txt');
  for (const dir of [
    join(code_, 'src'),
    join(code_, 'dir'),
    outside,
    join(home, '.ssh'),
    join(home, '.aws'),
    dataDir,
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(join(code_, 'src', 'a.ts'), 'export const a = 1; // needle\n');
  writeFileSync(join(code_, 'dir', 'inner.txt'), 'inner');
  writeFileSync(join(base, 'secret.txt'), 'outside secret needle');
  writeFileSync(join(outside, 'file.txt'), 'outside file needle');
  writeFileSync(join(outside, 'inner.txt'), 'the real outside inner');
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY needle');
  writeFileSync(join(home, '.aws', 'credentials'), 'aws needle');
  writeFileSync(join(dataDir, 'machine-id'), 'm_secretid');
  writeFileSync(tokenFile, 'tm_token_secret', { mode: 0o600 });
  symlinkSync(join(base, 'secret.txt'), join(code_, 'link-out-file'));
  symlinkSync(outside, join(code_, 'link-out-dir'));
  symlinkSync(join(code_, 'src', 'a.ts'), join(code_, 'link-in'));
  symlinkSync(join(base, 'nowhere'), join(code_, 'dangling'));
  const privates = privatePaths({ home, env: {}, extra: [dataDir, tokenFile] });
  const roots = await checkSharedRoots([home], privates);
  if (!roots.ok) throw new Error(roots.error.message);
  swap = undefined;
  executor = new MachineExecutor({
    roots: roots.value,
    privates,
    tasksDir: join(base, 'tasks'),
    beforeOpen: (path) => {
      swap?.(path);
      return Promise.resolve();
    },
  });
  host = (await linkTo(executor)).host;
});

afterEach(async () => {
  await executor.close();
  rmSync(base, { recursive: true, force: true });
});

const call = async (method: string, params: unknown) => code(await host.request(method, params));
const read = (path: string, root = code_) => call('fs.read', { root, path, maxBytes: 10_000 });
const write = (path: string, text = 'x', root = code_) => call('fs.write', { root, path, text });
const exec = (cwd: string) =>
  call('exec.run', {
    callId: `c${Math.random()}`.replace('.', ''),
    command: 'pwd',
    cwd,
    timeoutMs: 5000,
    maxOutputBytes: 1000,
  });

describe('confinement over the wire: paths', () => {
  it('reads and writes inside the session folder, and through a symlink that stays inside', async () => {
    expect(await read('src/a.ts')).toBe('ok');
    expect(await read('link-in')).toBe('ok');
    expect(await write('src/new.ts', 'new')).toBe('ok');
    expect(readFileSync(join(code_, 'src', 'new.ts'), 'utf8')).toBe('new');
  });
  it('refuses .. out of every shared root', () => expect(read('../../secret.txt')).resolves.toBe('outside-root'));
  it('refuses .. hidden in the middle of a path', () =>
    expect(read('src/../../../secret.txt')).resolves.toBe('outside-root'));
  it('refuses an absolute path outside', () => expect(read(join(base, 'secret.txt'))).resolves.toBe('outside-root'));
  it('refuses /etc/passwd', () => expect(read('/etc/passwd')).resolves.toBe('outside-root'));
  it('refuses a symlink to a file outside', () => expect(read('link-out-file')).resolves.toBe('outside-root'));
  it('refuses a file under a symlink to a folder outside', () =>
    expect(read('link-out-dir/file.txt')).resolves.toBe('outside-root'));
  it('refuses a NUL in a path', () => expect(read('src/a.ts\0.png')).resolves.toBe('outside-root'));
  it('refuses writing under a symlinked folder, creating nothing', async () => {
    expect(await write('link-out-dir/new.txt')).toBe('outside-root');
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  });
  it('refuses writing through a symlink to a file outside, leaving it whole', async () => {
    expect(await write('link-out-file', 'clobbered')).toBe('outside-root');
    expect(readFileSync(join(base, 'secret.txt'), 'utf8')).toBe('outside secret needle');
  });
  it('refuses writing through a dangling symlink', () => expect(write('dangling')).resolves.toBe('outside-root'));
  it('refuses writing with .. and with an absolute path', async () => {
    expect(await write('../../evil.txt')).toBe('outside-root');
    expect(await write(join(base, 'evil.txt'))).toBe('outside-root');
    expect(existsSync(join(base, 'evil.txt'))).toBe(false);
  });
  it('refuses a session folder outside the shared roots', () =>
    expect(read('file.txt', outside)).resolves.toBe('outside-root'));
  it('refuses a session folder given as a relative path', () =>
    expect(read('a.ts', 'code/src')).resolves.toBe('outside-root'));
  it('refuses listing and stat outside', async () => {
    expect(await call('fs.list', { root: code_, path: 'link-out-dir', maxEntries: 10 })).toBe('outside-root');
    expect(await call('fs.stat', { root: code_, path: '../../secret.txt' })).toBe('outside-root');
  });
});

describe('confinement over the wire: private folders', () => {
  it('refuses a credential folder inside a shared root, by .. and by absolute path', async () => {
    expect(await read('../.ssh/id_ed25519')).toBe('outside-root');
    expect(await read(join(home, '.ssh', 'id_ed25519'))).toBe('outside-root');
    expect(await read('.aws/credentials', home)).toBe('outside-root');
  });
  it('refuses a credential folder as a session folder', () =>
    expect(read('id_ed25519', join(home, '.ssh'))).resolves.toBe('outside-root'));
  it('refuses writing into a credential folder', async () => {
    expect(await write('.ssh/authorized_keys', 'ssh-ed25519 AAAA attacker', home)).toBe('outside-root');
    expect(existsSync(join(home, '.ssh', 'authorized_keys'))).toBe(false);
  });
  it("refuses the machine's data dir inside a root", () =>
    expect(read('.machine-data/machine-id')).resolves.toBe('outside-root'));
  it("refuses the machine's token file inside a root", () => expect(read('token.txt')).resolves.toBe('outside-root'));
  it('refuses stat of a private file', () =>
    expect(call('fs.stat', { root: home, path: '.ssh/id_ed25519' })).resolves.toBe('outside-root'));
  it('leaves private entries out of listings', async () => {
    const listed = await host.request('fs.list', { root: home, path: '.', maxEntries: 100 });
    const names = listed.ok ? (listed.value as { entries: { name: string }[] }).entries.map((e) => e.name) : [];
    expect(names).toContain('code');
    expect(names).not.toContain('.ssh');
    expect(names).not.toContain('.aws');
    const inCode = await host.request('fs.list', { root: code_, path: '.', maxEntries: 100 });
    const codeNames = inCode.ok ? (inCode.value as { entries: { name: string; type: string }[] }).entries : [];
    expect(codeNames.map((e) => e.name)).not.toContain('.machine-data');
    expect(codeNames.map((e) => e.name)).not.toContain('token.txt');
    // A link out is shown as a link, never followed: nothing of what is outside is listed.
    expect(codeNames.find((e) => e.name === 'link-out-dir')?.type).toBe('symlink');
    expect(codeNames.map((e) => e.name)).not.toContain('file.txt');
  });
  it('never answers a search from a private folder or through a link out', async () => {
    const found = await host.request('fs.search', {
      root: home,
      query: { pattern: 'needle', regex: false, caseSensitive: true, maxResults: 100 },
    });
    const paths = found.ok ? (found.value as { hits: { path: string }[] }).hits.map((h) => h.path) : ['failed'];
    expect(paths).toEqual(['code/src/a.ts']);
    const through = await call('fs.search', {
      root: code_,
      query: { pattern: 'needle', regex: false, caseSensitive: true, maxResults: 100, path: 'link-out-dir' },
    });
    expect(through).toBe('outside-root');
  });
});

describe('confinement over the wire: folders and processes', () => {
  it('checks a folder by real path', async () => {
    expect(await call('fs.checkFolder', { path: code_ })).toBe('ok');
    expect(await call('fs.checkFolder', { path: outside })).toBe('outside-root');
    expect(await call('fs.checkFolder', { path: join(code_, 'link-out-dir') })).toBe('outside-root');
    expect(await call('fs.checkFolder', { path: join(home, '.ssh') })).toBe('outside-root');
    expect(await call('fs.checkFolder', { path: 'code' })).toBe('outside-root');
  });
  it('runs commands only in a working folder inside the roots', async () => {
    expect(await exec(code_)).toBe('ok');
    expect(await exec(outside)).toBe('outside-root');
    expect(await exec(join(code_, 'link-out-dir'))).toBe('outside-root');
    expect(await exec(join(home, '.aws'))).toBe('outside-root');
    expect(await exec(join(code_, '..', '..'))).toBe('outside-root');
  });
  it('starts live processes and background tasks only inside the roots', async () => {
    const spawn = (cwd: string, root?: string) =>
      call('proc.spawn', {
        procId: `p${Math.floor(Math.random() * 1e9)}`,
        command: { shell: 'true' },
        cwd,
        ...(root ? { root } : {}),
      });
    expect(await spawn(outside)).toBe('outside-root');
    expect(await spawn('../..', code_)).toBe('outside-root');
    expect(await spawn('.ssh', home)).toBe('outside-root');
    expect(await call('tasks.start', { command: 'true', cwd: outside })).toBe('outside-root');
    expect(await call('tasks.start', { command: 'true', cwd: dataDir })).toBe('outside-root');
  });
  it("offers the app's folder picker only shared, non-private folders", async () => {
    const roots = await host.request('fs.listDirs', {});
    expect(roots.ok && (roots.value as { dirs: { path: string }[] }).dirs.map((d) => d.path)).toEqual([home]);
    const inHome = await host.request('fs.listDirs', { path: home });
    const names = inHome.ok
      ? (inHome.value as { dirs: { name: string }[]; parent: unknown }).dirs.map((d) => d.name)
      : [];
    expect(names).toEqual(['code']);
    const inCode = await host.request('fs.listDirs', { path: code_ });
    const codeDirs = inCode.ok ? (inCode.value as { dirs: { name: string }[] }).dirs.map((d) => d.name) : [];
    expect(codeDirs).toEqual(['dir', 'src']);
    expect(await call('fs.listDirs', { path: outside })).toBe('outside-root');
    expect(await call('fs.listDirs', { path: join(code_, 'link-out-dir') })).toBe('outside-root');
    expect(await call('fs.listDirs', { path: join(home, '.ssh') })).toBe('outside-root');
  });
});

describe('confinement over the wire: a symlink swapped between check and use', () => {
  const swapDirOut = (path: string) => {
    if (!path.includes(`${join(code_, 'dir')}/`)) return;
    renameSync(join(code_, 'dir'), join(code_, 'dir-moved'));
    symlinkSync(outside, join(code_, 'dir'));
  };
  it('a read opens the swapped file but refuses it', async () => {
    swap = swapDirOut;
    expect(await read('dir/inner.txt')).toBe('outside-root');
  });
  it('a write refuses it before changing a byte', async () => {
    swap = swapDirOut;
    expect(await write('dir/inner.txt', 'clobbered')).toBe('outside-root');
    expect(readFileSync(join(outside, 'inner.txt'), 'utf8')).toBe('the real outside inner');
  });
});

describe('confinement at share time', () => {
  it('refuses a root inside a credential folder, the data dir, or that does not exist', async () => {
    mkdirSync(join(home, '.ssh', 'keys'));
    const privates = privatePaths({ home, env: {}, extra: [dataDir] });
    expect(code(await checkSharedRoots([join(home, '.ssh', 'keys')], privates))).toBe('forbidden');
    expect(code(await checkSharedRoots([join(home, '.ssh')], privates))).toBe('forbidden');
    expect(code(await checkSharedRoots([dataDir], privates))).toBe('forbidden');
    expect(code(await checkSharedRoots(['relative/dir'], privates))).toBe('invalid-params');
    expect(code(await checkSharedRoots([join(base, 'missing')], privates))).toBe('invalid-params');
    expect(code(await checkSharedRoots([], privates))).toBe('invalid-params');
  });
  it('refuses a root reached through a symlink into a credential folder', async () => {
    symlinkSync(join(home, '.aws'), join(base, 'innocent'));
    const privates = privatePaths({ home, env: {}, extra: [] });
    expect(code(await checkSharedRoots([join(base, 'innocent')], privates))).toBe('forbidden');
  });
  it('refuses unknown methods and malformed params with stable codes', async () => {
    expect(await call('fs.delete', { path: '/' })).toBe('unknown-method');
    expect(await call('fs.read', { root: code_, path: 5 })).toBe('invalid-params');
  });
});
