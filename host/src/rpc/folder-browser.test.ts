import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privatePaths } from '@tether/machine';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insideRoots, listDirs } from './folder-browser.js';

let home: string;
let privates: string[];

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'tether-browse-')));
  for (const folder of ['code/app', '.ssh', '.aws', '.config/gcloud', '.config/nvim', 'data'])
    mkdirSync(join(home, folder), { recursive: true });
  symlinkSync(join(home, '.ssh'), join(home, 'code', 'keys'));
  privates = privatePaths({ env: {}, home, extra: [join(home, 'data')] });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("the host's own folders keep the machine's private list", () => {
  it('does not list credential folders or its data dir inside a shared home', async () => {
    const listed = await listDirs([home], home, privates);
    expect(listed.ok && listed.value.dirs.map((d) => d.name)).toEqual(['code', '.config']);
    const config = await listDirs([home], join(home, '.config'), privates);
    expect(config.ok && config.value.dirs.map((d) => d.name)).toEqual(['nvim']);
  });

  it('refuses a private folder, through a link or not, as a session folder or a listing', async () => {
    for (const path of [join(home, '.ssh'), join(home, '.aws'), join(home, 'code', 'keys'), join(home, 'data')]) {
      expect(await insideRoots([home], path, privates)).toBeUndefined();
      const listed = await listDirs([home], path, privates);
      expect(listed.ok ? 'ok' : listed.error.code).toBe('forbidden');
    }
    expect(await insideRoots([home], join(home, 'code', 'app'), privates)).toBe(join(home, 'code', 'app'));
  });

  it('does not offer a root that is itself private', async () => {
    const listed = await listDirs([join(home, '.aws'), join(home, 'code')], undefined, privates);
    expect(listed.ok && listed.value.dirs.map((d) => d.path)).toEqual([join(home, 'code')]);
  });

  it('lists everything when no private list is given (the list is opt-in per caller)', async () => {
    const listed = await listDirs([home], home);
    expect(listed.ok && listed.value.dirs.length).toBe(5);
  });
});
