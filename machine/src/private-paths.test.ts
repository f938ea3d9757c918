import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRIVATE_HOME_PATHS, isPrivatePath, privatePaths } from './private-paths.js';

let base: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-private-paths-')));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('the private list', () => {
  it('says why for every entry, and names each path once', () => {
    expect(PRIVATE_HOME_PATHS.every((entry) => entry.why.length > 0 && !entry.path.startsWith('/'))).toBe(true);
    expect(new Set(PRIVATE_HOME_PATHS.map((entry) => entry.path)).size).toBe(PRIVATE_HOME_PATHS.length);
  });

  it('follows the variables that move credentials elsewhere', () => {
    const privates = privatePaths({
      home: join(base, 'home'),
      env: {
        XDG_CONFIG_HOME: join(base, 'xdg'),
        KUBECONFIG: `${join(base, 'kube-a')}:${join(base, 'kube-b')}`,
        CARGO_HOME: join(base, 'cargo'),
        HISTFILE: join(base, 'history'),
        DOCKER_CONFIG: 'relative/not/counted',
      },
    });
    for (const path of [
      join(base, 'xdg', 'hub'),
      join(base, 'xdg', 'gh', 'hosts.yml'),
      join(base, 'xdg', 'tether', 'x'),
      join(base, 'kube-a'),
      join(base, 'kube-b'),
      join(base, 'cargo', 'credentials.toml'),
      join(base, 'history'),
      join(base, 'home', '.npmrc'),
    ]) {
      expect(isPrivatePath(path, privates), path).toBe(true);
    }
    expect(isPrivatePath(join(base, 'cargo', 'bin', 'tool'), privates)).toBe(false);
    expect(privates.some((p) => p.includes('relative'))).toBe(false);
  });

  it('keeps a dotfile kept elsewhere through a symlink private under both names', () => {
    const home = join(base, 'home');
    mkdirSync(join(base, 'dotfiles'));
    mkdirSync(home);
    writeFileSync(join(base, 'dotfiles', 'npmrc'), '//registry.npmjs.org/:_authToken=x\n');
    symlinkSync(join(base, 'dotfiles', 'npmrc'), join(home, '.npmrc'));
    const privates = privatePaths({ home, env: {} });
    expect(isPrivatePath(join(base, 'dotfiles', 'npmrc'), privates)).toBe(true);
    expect(isPrivatePath(join(base, 'dotfiles', 'vimrc'), privates)).toBe(false);
  });
});
