import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { privatePaths } from './private-paths.js';
import { LocalContext } from './local-context.js';

// A path is confined by real path before it is used; a command running on the same computer can
// swap a folder or the file itself between that check and the open. The host's own computer must
// refuse what it then opened, as a machine does: each case swaps at the seam between the two.

let base: string;
let home: string;
let code_: string;
let outside: string;
let swap: ((path: string) => void) | undefined;
let context: LocalContext;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-local-swap-')));
  home = join(base, 'home');
  code_ = join(home, 'code');
  outside = join(base, 'outside');
  for (const dir of [join(code_, 'dir'), outside, join(home, '.ssh')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(code_, 'dir', 'inner.txt'), 'inner');
  writeFileSync(join(code_, 'notes.txt'), 'notes');
  writeFileSync(join(outside, 'inner.txt'), 'the real outside inner');
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY needle\n');
  swap = undefined;
  context = new LocalContext({
    privates: privatePaths({ env: {}, home }),
    beforeOpen: (path) => {
      swap?.(path);
      return Promise.resolve();
    },
  });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code);

/** A folder on the way becomes a symlink out of the session folder. */
const swapDirOut = (path: string) => {
  if (!path.includes(`${join(code_, 'dir')}/`)) return;
  renameSync(join(code_, 'dir'), join(code_, 'dir-moved'));
  symlinkSync(outside, join(code_, 'dir'));
};
/** The file itself becomes another name (a hard link) for the private key. */
const swapForHardLink = (path: string) => {
  if (path !== join(code_, 'notes.txt')) return;
  unlinkSync(path);
  linkSync(join(home, '.ssh', 'id_ed25519'), path);
};
/** The file itself becomes a symlink to a file outside. */
const swapForSymlink = (path: string) => {
  if (path !== join(code_, 'notes.txt')) return;
  unlinkSync(path);
  symlinkSync(join(outside, 'inner.txt'), path);
};

describe("the host's own computer: a file swapped between its check and its open", () => {
  it('refuses a read through a folder swapped for a symlink out', async () => {
    swap = swapDirOut;
    expect(code(await context.readFile(code_, 'dir/inner.txt', 10_000))).toBe('outside-root');
  });

  it('refuses a write through a folder swapped for a symlink out, before changing a byte', async () => {
    swap = swapDirOut;
    expect(code(await context.writeFile(code_, 'dir/inner.txt', 'clobbered'))).toBe('outside-root');
    expect(readFileSync(join(outside, 'inner.txt'), 'utf8')).toBe('the real outside inner');
  });

  it('refuses a file swapped for a hard link to a private file', async () => {
    swap = swapForHardLink;
    expect(code(await context.readFile(code_, 'notes.txt', 10_000))).toBe('outside-root');
    swap = swapForHardLink;
    expect(code(await context.writeFile(code_, 'notes.txt', 'ssh-ed25519 AAAA attacker'))).toBe('outside-root');
    expect(readFileSync(join(home, '.ssh', 'id_ed25519'), 'utf8')).toBe('PRIVATE KEY needle\n');
  });

  it('refuses a file swapped for a symlink out', async () => {
    swap = swapForSymlink;
    expect(code(await context.readFile(code_, 'notes.txt', 10_000))).toBe('outside-root');
    expect(code(await context.writeFile(code_, 'notes.txt', 'clobbered'))).toBe('outside-root');
    expect(readFileSync(join(outside, 'inner.txt'), 'utf8')).toBe('the real outside inner');
  });

  it('refuses to describe a file swapped for a hard link to a private file', async () => {
    swap = swapForHardLink;
    expect(code(await context.stat(code_, 'notes.txt'))).toBe('outside-root');
  });

  it('still reads, writes and describes a file nobody touched', async () => {
    expect(code(await context.readFile(code_, 'dir/inner.txt', 10_000))).toBe('ok');
    expect(code(await context.writeFile(code_, 'dir/new.txt', 'new'))).toBe('ok');
    const info = await context.stat(code_, 'notes.txt');
    expect(info.ok && info.value.type).toBe('file');
  });
});
