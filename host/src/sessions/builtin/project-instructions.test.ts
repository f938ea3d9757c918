import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostLocalContext } from '../host-context.js';
import type { ExecutionContext } from '@tether/machine';
import {
  INSTRUCTIONS_PROMPT_CHARS,
  INSTRUCTIONS_READ_BYTES,
  loadInstructions,
  repositoryRoot,
} from './project-instructions.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository `repo` (with `.git`) holding `repo/app/src`, beside an outside folder and a data dir. */
function layout() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-instr-')));
  dirs.push(base);
  const repo = join(base, 'repo');
  const cwd = join(repo, 'app', 'src');
  mkdirSync(join(repo, '.git'), { recursive: true });
  writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(base, 'outside'));
  mkdirSync(join(base, 'data'));
  return { base, repo, cwd, hostFile: join(base, 'data', 'AGENTS.md') };
}

const context = hostLocalContext({});

describe('project instructions', () => {
  it('reads AGENTS.md from the repository root down to the session folder, CLAUDE.md where none, then the host file', async () => {
    const l = layout();
    writeFileSync(join(l.base, 'AGENTS.md'), 'above the repository: never read');
    writeFileSync(join(l.repo, 'AGENTS.md'), 'root rules');
    writeFileSync(join(l.repo, 'CLAUDE.md'), 'shadowed by AGENTS.md');
    writeFileSync(join(l.repo, 'app', 'CLAUDE.md'), 'app rules');
    writeFileSync(join(l.cwd, 'AGENTS.md'), 'src rules');
    writeFileSync(l.hostFile, 'host rules');
    const loaded = await loadInstructions({ context, cwd: l.cwd, hostFile: l.hostFile });
    expect(loaded.files).toEqual([
      { path: join(l.repo, 'AGENTS.md'), status: 'read', bytes: 10 },
      { path: join(l.repo, 'app', 'CLAUDE.md'), status: 'read', bytes: 9 },
      { path: join(l.cwd, 'AGENTS.md'), status: 'read', bytes: 9 },
      { path: l.hostFile, status: 'read', bytes: 10 },
    ]);
    const order = ['root rules', 'app rules', 'src rules', 'host rules'].map((text) => loaded.prompt.indexOf(text));
    expect(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(loaded.prompt).not.toContain('never read');
    expect(loaded.prompt).not.toContain('shadowed');
    expect(loaded.notices).toEqual([]);
  });

  it('takes the session folder alone outside a repository, and nothing when there is no file', async () => {
    const l = layout();
    rmSync(join(l.repo, '.git'), { recursive: true });
    writeFileSync(join(l.repo, 'AGENTS.md'), 'not in a repository: not read');
    expect(await loadInstructions({ context, cwd: l.cwd })).toEqual({ files: [], prompt: '', notices: [] });
    writeFileSync(join(l.cwd, 'AGENTS.md'), 'here');
    expect((await loadInstructions({ context, cwd: l.cwd })).files).toEqual([
      { path: join(l.cwd, 'AGENTS.md'), status: 'read', bytes: 4 },
    ]);
  });

  it('takes no empty .git, folder or file, for a repository (git does not either)', async () => {
    const l = layout();
    writeFileSync(join(l.repo, 'AGENTS.md'), 'not a repository: not read');
    rmSync(join(l.repo, '.git'), { recursive: true });
    mkdirSync(join(l.repo, '.git'));
    expect(await repositoryRoot(context, l.cwd)).toBe(l.cwd);
    rmSync(join(l.repo, '.git'), { recursive: true });
    writeFileSync(join(l.repo, '.git'), '');
    expect(await repositoryRoot(context, l.cwd)).toBe(l.cwd);
    expect((await loadInstructions({ context, cwd: l.cwd })).files).toEqual([]);
  });

  it('finds the root of a worktree, whose .git is a file', async () => {
    const l = layout();
    rmSync(join(l.repo, '.git'), { recursive: true });
    writeFileSync(join(l.repo, '.git'), 'gitdir: /elsewhere\n');
    writeFileSync(join(l.repo, 'AGENTS.md'), 'root rules');
    expect((await loadInstructions({ context, cwd: l.cwd })).files.map((f) => f.path)).toEqual([
      join(l.repo, 'AGENTS.md'),
    ]);
  });

  it('cuts a 10 MB AGENTS.md to the cap with a notice, reading only its beginning', async () => {
    const l = layout();
    writeFileSync(join(l.repo, 'AGENTS.md'), `Start here.\n${'x'.repeat(10 * 1024 * 1024)}`);
    writeFileSync(join(l.cwd, 'AGENTS.md'), 'src rules');
    // What the execution context hands back is all that is held of the file.
    const held: number[] = [];
    const counting: ExecutionContext = Object.assign(Object.create(context) as ExecutionContext, {
      readFile: async (...args: Parameters<ExecutionContext['readFile']>) => {
        const read = await context.readFile(...args);
        if (read.ok) held.push(read.value.text.length);
        return read;
      },
    });
    const loaded = await loadInstructions({ context: counting, cwd: l.cwd });
    expect(loaded.files[0]).toEqual({ path: join(l.repo, 'AGENTS.md'), status: 'cut', bytes: 10 * 1024 * 1024 + 12 });
    expect(loaded.prompt).toContain('Start here.');
    expect(loaded.prompt).toContain('[… cut: the rest of this file was left out]');
    expect(loaded.notices[0]).toBe(
      `Instructions in ${join(l.repo, 'AGENTS.md')} were cut: the instructions take at most ${INSTRUCTIONS_PROMPT_CHARS} characters.`,
    );
    // The cap is over all files: the nearer one has no room left, and says so.
    expect(loaded.files[1]).toMatchObject({ status: 'left-out' });
    expect(loaded.prompt.length).toBeLessThan(INSTRUCTIONS_PROMPT_CHARS + 1024);
    expect(Math.max(...held)).toBeLessThanOrEqual(INSTRUCTIONS_READ_BYTES);
  });

  it('cuts a file inside a character without a broken one', async () => {
    const l = layout();
    // 'é' is two bytes: the read limit falls in the middle of one.
    writeFileSync(join(l.repo, 'AGENTS.md'), `x${'é'.repeat(INSTRUCTIONS_READ_BYTES)}`);
    const loaded = await loadInstructions({ context, cwd: l.repo });
    expect(loaded.files[0]).toMatchObject({ status: 'cut' });
    expect(loaded.prompt).not.toContain('\uFFFD');
  });

  it('cuts what passes the cap over all files, with a notice, and leaves out what has no room', async () => {
    const l = layout();
    writeFileSync(join(l.repo, 'AGENTS.md'), 'a'.repeat(INSTRUCTIONS_PROMPT_CHARS - 100));
    writeFileSync(join(l.repo, 'app', 'AGENTS.md'), 'b'.repeat(1000));
    writeFileSync(join(l.cwd, 'AGENTS.md'), 'c'.repeat(10));
    const loaded = await loadInstructions({ context, cwd: l.cwd });
    expect(loaded.files.map((f) => f.status)).toEqual(['read', 'cut', 'left-out']);
    expect(loaded.prompt).toContain(`${'b'.repeat(100)}\n[… cut`);
    expect(loaded.prompt).not.toContain('b'.repeat(101));
    expect(loaded.prompt).not.toContain('cccc');
    expect(loaded.notices).toHaveLength(2);
  });

  it('refuses an AGENTS.md that links out of the repository', async () => {
    const l = layout();
    writeFileSync(join(l.base, 'outside', 'secret.md'), 'outside text');
    symlinkSync(join(l.base, 'outside', 'secret.md'), join(l.cwd, 'AGENTS.md'));
    const loaded = await loadInstructions({ context, cwd: l.cwd });
    expect(loaded.files).toEqual([{ path: join(l.cwd, 'AGENTS.md'), status: 'left-out', bytes: 0 }]);
    expect(loaded.prompt).not.toContain('outside text');
    expect(loaded.notices[0]).toContain('left out');
  });

  it('reads the host file once when the session folder is the data dir', async () => {
    const l = layout();
    const data = join(l.base, 'data');
    writeFileSync(l.hostFile, 'host rules');
    const loaded = await loadInstructions({ context, cwd: data, hostFile: l.hostFile });
    expect(loaded.files).toEqual([{ path: l.hostFile, status: 'read', bytes: 10 }]);
    expect(loaded.prompt.split('host rules')).toHaveLength(2);
  });

  it('cuts a host file over the read limit', async () => {
    const l = layout();
    writeFileSync(l.hostFile, 'h'.repeat(300 * 1024));
    const loaded = await loadInstructions({ context, cwd: l.cwd, hostFile: l.hostFile });
    expect(loaded.files).toEqual([{ path: l.hostFile, status: 'cut', bytes: 300 * 1024 }]);
    expect(loaded.prompt).toContain('hhhh');
    expect(loaded.notices).toEqual([expect.stringContaining('were cut') as unknown]);
  });
});
