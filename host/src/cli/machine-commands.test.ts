import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../test/support/run-command.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';
import { flag, listOption, parseArgs, stringOption } from './args.js';
import { EXIT_REFUSED, machineShareCommand, machineStatusCommand, serviceArgs } from './commands/machine-share.js';
import { machinesForgetCommand, machinesListCommand } from './commands/machines.js';
import { sessionsNewCommand } from './commands/sessions.js';
import { startCommand } from './commands/start.js';
import { tokenCreateCommand, tokensListCommand, tokensRevokeCommand } from './commands/tokens.js';

let t: TestHost;
let base: string;
let dataDir: string;

beforeEach(async () => {
  t = await startTestHost({ remote: LOCAL_REMOTE });
  dataDir = join(t.dir, 'data');
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-machine-cli-')));
});
afterEach(async () => {
  await t.close();
  rmSync(base, { recursive: true, force: true });
});

const data = (argv: string[]) => [...argv, '--data-dir', dataDir];

async function until<T>(check: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function createToken(name = 'laptop'): Promise<{ token: string; id: string; hostKey: string; file: string }> {
  const created = await runCommand(tokenCreateCommand, data(['--scope', 'machine', '--name', name, '--json']));
  expect(created.code, created.err).toBe(0);
  const parsed = JSON.parse(created.out) as { token: string; id: string; hostKey: string };
  const file = join(base, `${name}.token`);
  writeFileSync(file, `${parsed.token}\n`, { mode: 0o600 });
  return { ...parsed, file };
}

describe('tether token create / tokens / tokens revoke', () => {
  it('prints the token once; the list never shows it', async () => {
    const created = await runCommand(tokenCreateCommand, data(['--scope', 'machine', '--name', 'laptop']));
    expect(created.code, created.err).toBe(0);
    const token = /^ {2}(tmt\.\S+)$/m.exec(created.out)?.[1];
    expect(token).toBeDefined();
    expect(created.out).toContain('--token-file');
    const listed = await runCommand(tokensListCommand, data([]));
    expect(listed.out).toContain('laptop');
    expect(listed.out).not.toContain(token);
    const json = await runCommand(tokensListCommand, data(['--json']));
    expect(json.out).not.toContain(token);
    expect((JSON.parse(json.out) as { revoked: boolean }[])[0]!.revoked).toBe(false);
  });

  it('prints a machine share line that reads back as given, a name that starts with a dash included', async () => {
    const created = await runCommand(tokenCreateCommand, data(['--scope', 'machine', '--name=-odd one']));
    expect(created.code, created.err).toBe(0);
    const line = /tether machine share (.+\\)\n\s+(.+)\n/.exec(created.out)!;
    const words = `${line[1]!.slice(0, -1)} ${line[2]!}`.split(/ +/);
    const read = parseArgs(words, machineShareCommand.options);
    if (!read.ok) throw new Error(read.error.message);
    expect(stringOption(read.value, 'name')).toBe('-odd-one');
    expect(words).toContain('--name=-odd-one');
    const { hostKey } = JSON.parse(
      (await runCommand(tokenCreateCommand, data(['--scope', 'machine', '--name', 'x', '--json']))).out,
    ) as { hostKey: string };
    expect(stringOption(read.value, 'host-key')).toBe(hostKey);
  });

  it('gives the background service a line that reads back as given, a dashed key and name included', () => {
    const share = { host: 'http://h:1', tokenFile: '/t', name: '-odd', roots: ['/a', '/b'], dir: '/m' };
    const hostKey = '-Qx3kT9x0aQ1bZc7Yw_8AaQx3kT9x0aQ1bZc7Yw_8Aa';
    const read = parseArgs(serviceArgs({ ...share, hostKey }), machineShareCommand.options);
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.positionals).toEqual([]);
    expect(stringOption(read.value, 'name')).toBe('-odd');
    expect(stringOption(read.value, 'host-key')).toBe(hostKey);
    expect(listOption(read.value, 'root')).toEqual(['/a', '/b']);
    expect(stringOption(read.value, 'machine-dir')).toBe('/m');
    expect(flag(read.value, 'service')).toBe(true);
  });

  it('still reads a service line written before keys were given with =, a key that starts with a dash included', () => {
    const hostKey = '-Qx3kT9x0aQ1bZc7Yw_8AaQx3kT9x0aQ1bZc7Yw_8Aa';
    const old = ['--host', 'http://h:1', '--token-file', '/t', '--root', '/a', '--host-key', hostKey, '--service'];
    const read = parseArgs(old, machineShareCommand.options);
    if (!read.ok) throw new Error(read.error.message);
    expect(stringOption(read.value, 'host-key')).toBe(hostKey);
    expect(flag(read.value, 'service')).toBe(true);
    // Only a word of a key's shape: a forgotten key is still refused, with how to write a dashed one.
    const forgotten = parseArgs(['--host-key', '--service'], machineShareCommand.options);
    expect(forgotten.ok).toBe(false);
  });

  it('refuses a missing or unknown scope, and an unknown id to revoke', async () => {
    expect((await runCommand(tokenCreateCommand, data(['--name', 'x']))).code).toBe(2);
    expect((await runCommand(tokenCreateCommand, data(['--scope', 'device', '--name', 'x']))).code).toBe(2);
    const revoked = await runCommand(tokensRevokeCommand, data(['tm_nothing']));
    expect(revoked.code).toBe(1);
    expect(revoked.err).toMatch(/not-found|no token/);
  });
});

describe('tether machine share against a listening host', () => {
  it('links, shows online in tether machines, and a revoked token stops it for good', async () => {
    const { file, hostKey, id } = await createToken();
    const root = join(base, 'code');
    mkdirSync(root);
    const machineDir = join(base, 'machine');
    const share = runCommand(machineShareCommand, [
      ...['--host', t.url, '--token-file', file, '--name', 'laptop', '--root', root, `--host-key=${hostKey}`],
      ...['--machine-dir', machineDir],
    ]).catch((error: Error) => ({ code: -1, out: '', err: error.message }));
    await until(() => (t.host.parts.machines.registry.isOnline('laptop') ? true : undefined), 'the machine to link');

    const listed = await runCommand(machinesListCommand, data(['--json']));
    const machines = JSON.parse(listed.out) as { name: string; status: string; roots: string[] }[];
    expect(machines).toEqual([expect.objectContaining({ name: 'laptop', status: 'online', roots: [root] })]);
    expect((await runCommand(machinesListCommand, data([]))).out).toMatch(/laptop\s+online/);

    // A session outside the machine's roots is refused with the roots named.
    const outside = await runCommand(sessionsNewCommand, data(['--machine', 'laptop', '--cwd', '/etc', 'hi']));
    expect(outside.code).toBe(1);
    expect(outside.err).toContain(root);
    const inside = await runCommand(sessionsNewCommand, data(['--machine', 'laptop', '--cwd', root, 'hi', '--json']));
    expect(inside.code, inside.err).toBe(0);
    expect(JSON.parse(inside.out)).toEqual(expect.objectContaining({ place: 'laptop', cwd: root }));

    const revoked = await runCommand(tokensRevokeCommand, data([id]));
    expect(revoked.out).toContain('dropped 1 live machine link');
    const ended = await share;
    expect(ended.code).toBe(EXIT_REFUSED);
    expect(ended.err).toMatch(/revoked/i);
  });

  it('refuses to share without a token file, a root, or with a token file others can read', async () => {
    const { file } = await createToken();
    const root = join(base, 'code');
    mkdirSync(root);
    const noToken = await runCommand(machineShareCommand, ['--host', t.url, '--root', root]);
    expect(noToken.code).toBe(2);
    expect(noToken.err).toContain('--token-file');
    const noRoot = await runCommand(machineShareCommand, ['--host', t.url, '--token-file', file]);
    expect(noRoot.code).toBe(2);
    chmodSync(file, 0o644);
    const open = await runCommand(machineShareCommand, [
      '--host',
      t.url,
      '--token-file',
      file,
      '--root',
      root,
      '--machine-dir',
      join(base, 'machine'),
    ]);
    expect(open.code).not.toBe(0);
    expect(open.err).toMatch(/0600|only you|owner|others/i);
  });

  it('says when this computer is not shared', async () => {
    const status = await runCommand(machineStatusCommand, ['--machine-dir', join(base, 'never'), '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.out)).toEqual(expect.objectContaining({ running: false }));
  });

  it('forgets a machine by name and refuses an unknown one', async () => {
    expect((await runCommand(machinesForgetCommand, data(['nothing']))).code).toBe(1);
    expect((await runCommand(sessionsNewCommand, data(['--machine', 'laptop', 'hi']))).code).toBe(2);
  });
});

describe('tether start --machine-wait', () => {
  it('takes minutes within a day, and refuses anything else before starting', async () => {
    for (const bad of ['soon', '-1', '1e3', '1441']) {
      const started = await runCommand(startCommand, [`--machine-wait=${bad}`, '--data-dir', join(base, 'unused')]);
      expect(started.code).toBe(2);
      expect(started.err).toContain('--machine-wait takes minutes');
    }
  });
});
