import type { SessionEvent } from '@tether/shared-protocol';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCRIPTED_AGENT } from '../../test/support/acp-test-host.js';
import { connectDevice, pairDevice } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';
import { Host } from '../host.js';

/**
 * A data dir named with `--data-dir` is as private as the usual ones, however it is named: a
 * phone's session under a root that holds it read `host-key.json` without asking, and the folder
 * picker offered it. Each case puts the data dir inside the root the phone may use.
 */

let base: string;
let t: TestHost | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
  await t?.close();
  t = undefined;
  rmSync(base, { recursive: true, force: true });
});

/** A host whose root is `<base>/root`, with its data dir at `dataDir` (named as given). */
async function hostWithDataDir(name: (root: string) => string) {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-data-private-')));
  const root = join(base, 'root');
  mkdirSync(join(root, 'project'), { recursive: true });
  const agentsConfig = join(base, 'agents.json');
  writeFileSync(
    agentsConfig,
    JSON.stringify({ agents: { scripted: { command: process.execPath, args: [SCRIPTED_AGENT] } } }),
  );
  t = await startTestHost({ remote: { ...LOCAL_REMOTE, roots: [root] }, dataDir: name(root), agentsConfig });
  const device = await pairDevice(t, { scopes: ['watch', 'approve', 'chat'] });
  const { client } = connectDevice(t, device);
  cleanups.push(() => client.stop());
  return { root, client };
}

/** What the scripted agent, in a session in `cwd`, said after reading `path` through Tether. */
async function agentReads(cwd: string, path: string): Promise<string> {
  const created = await t!.host.parts.sessions.create({ cwd, text: `read ${path}`, kind: 'acp', model: 'scripted' });
  if (!created.ok) throw new Error(created.error.message);
  const id = created.value.id;
  await t!.waitFor(id, (e) => e.type === 'run.finished');
  return t!
    .events(id)
    .filter((e): e is Extract<SessionEvent, { type: 'message' }> => e.type === 'message' && e.role === 'assistant')
    .map((e) => e.text)
    .join('');
}

describe('a data dir named on the command line is private', () => {
  it.each([
    ['inside the root', (root: string) => join(root, 'tether-data'), 'tether-data'],
    ['relative to the working folder', (root: string) => relative(process.cwd(), join(root, 'rel-data')), 'rel-data'],
    [
      'through a symlink',
      (root: string) => {
        mkdirSync(join(root, 'real-data'));
        symlinkSync(join(root, 'real-data'), join(base, 'data-link'));
        return join(base, 'data-link');
      },
      'real-data',
    ],
  ])('%s: not offered, no session there, not read by a session around it', async (_, name, folder) => {
    const { root, client } = await hostWithDataDir(name);
    const listed = await client.call('fs.listDirs', { path: root });
    if (!listed.ok) throw new Error(listed.error.message);
    expect(listed.value.dirs.map((d) => d.name)).toEqual(['project']);
    const there = await client.call('sessions.create', { cwd: join(root, folder), text: 'hello' });
    expect(there).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const said = await agentReads(root, `${folder}/host-key.json`);
    expect(said).toMatch(/^read failed: /);
    expect(said).not.toContain('SecretKey');
  });

  it('refuses to start with a root inside its data dir, saying why', async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-data-private-')));
    const dataDir = join(base, 'data');
    mkdirSync(join(dataDir, 'work'), { recursive: true });
    const started = await Host.start({
      dataDir,
      env: {},
      roots: [join(dataDir, 'work')],
      keepAwake: { enabled: false },
    });
    if (started.ok) await started.value.close();
    expect(started).toMatchObject({ ok: false, error: { message: expect.stringMatching(/private/) as unknown } });
  });
});
