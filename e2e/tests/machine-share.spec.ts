import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { device, pairThroughLink, startAppHost } from '../support/app-host.js';
import type { FakeModel } from '../support/fake-openai.js';
import { startFakeModel } from '../support/fake-openai.js';
import { TETHER_BIN, eventually, makeDataDir, removeDataDir, tether, tetherJson } from '../support/host-process.js';

// A host and a machine, each its own `tether` process on 127.0.0.1: the machine shares one folder,
// a session on it runs its shell tool there, and the approval answered in the app names the machine.

const MACHINE = 'lab-laptop';
/** A file only the machine's shared folder has: the host's own folders do not. */
const MACHINE_ONLY = 'only-on-the-machine.txt';

let host: AppHost;
let machineBase: string;
let share: ChildProcess | undefined;
let shareOut = '';
let model: FakeModel | undefined;
/** Processes a test left on purpose (a command orphaned by a killed machine), ended after it. */
const leftPids: number[] = [];

interface MachineLine {
  id: string;
  name: string;
  status: string;
  roots: string[];
}

async function startShare(root: string): Promise<void> {
  const created = await tetherJson<{ token: string; id: string; hostKey: string }>(host.dataDir, [
    'token',
    'create',
    '--scope',
    'machine',
    '--name',
    MACHINE,
  ]);
  const tokenFile = join(machineBase, 'token');
  writeFileSync(tokenFile, `${created.token}\n`, { mode: 0o600 });
  const args = [
    TETHER_BIN,
    'machine',
    'share',
    '--host',
    host.url,
    '--token-file',
    tokenFile,
    '--name',
    MACHINE,
    '--root',
    root,
    // A key that starts with a dash is a value only in this spelling.
    `--host-key=${created.hostKey}`,
    '--machine-dir',
    join(machineBase, 'machine-data'),
  ];
  // The token is in a file, never in the arguments.
  expect(args.join(' ')).not.toContain(created.token);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: machineBase };
  delete env.TETHER_DATA_DIR;
  delete env.TETHER_MACHINE_DIR;
  share = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  share.stdout!.on('data', (chunk: Buffer) => (shareOut += chunk.toString()));
  share.stderr!.on('data', (chunk: Buffer) => (shareOut += chunk.toString()));
  await eventually(
    async () => {
      const machines = await tetherJson<MachineLine[]>(host.dataDir, ['machines']);
      return machines.find((m) => m.name === MACHINE && m.status === 'online');
    },
    20_000,
    'the machine to come online',
  ).catch((error: Error) => {
    throw new Error(`${error.message}; share printed: ${shareOut}`);
  });
  expect(shareOut).not.toContain(created.token);
}

test.afterEach(async () => {
  if (share && share.exitCode === null && share.signalCode === null) {
    const exited = new Promise((resolve) => share!.once('exit', resolve));
    share.kill('SIGTERM');
    await exited;
  }
  share = undefined;
  shareOut = '';
  for (const pid of leftPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await host.stop();
  await model?.close();
  model = undefined;
  removeDataDir(machineBase);
});

test.describe('a machine lending itself to the host', () => {
  test.use(device('iPhone 15'));
  // Two `tether` processes, a browser and the CLI calls between them: slower than one app test.
  test.describe.configure({ timeout: 120_000 });

  test('a session on the machine runs its shell there; the approval in the app names the machine', async ({ page }) => {
    host = await startAppHost({ demoDelayMs: 10 });
    machineBase = realpathSync(makeDataDir());
    const root = join(machineBase, 'code');
    mkdirSync(root);
    writeFileSync(join(root, MACHINE_ONLY), 'hello from the machine\n');
    await startShare(root);

    const listed = await tetherJson<MachineLine[]>(host.dataDir, ['machines']);
    expect(listed.find((m) => m.name === MACHINE)?.roots).toEqual([root]);

    // A folder outside the machine's roots is refused at creation, the roots named.
    const outside = await tether(host.dataDir, ['sessions', 'new', '--machine', MACHINE, '--cwd', '/etc', 'hi']);
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toContain(root);
    const escape = await tether(host.dataDir, [
      'sessions',
      'new',
      '--machine',
      MACHINE,
      '--cwd',
      `${root}/../machine-data`,
      'hi',
    ]);
    expect(escape.code).not.toBe(0);

    await pairThroughLink(page, host);
    // The host's screen lists the machine, online, with its folder.
    const row = page.locator(`[data-machine="${MACHINE}"]`);
    await expect(row).toHaveAttribute('data-machine-status', 'online');
    await expect(row).toContainText(root);

    // A new session placed on the machine, its folder picked from the machine's roots.
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByLabel('Runs on').selectOption(MACHINE);
    await page.getByRole('button', { name: `Browse folders on ${MACHINE}` }).click();
    await page.getByRole('list', { name: 'Folders' }).getByRole('button', { name: root }).click();
    await expect(page.getByLabel('Folder', { exact: true })).toHaveValue(root);
    await page.getByLabel('First message').fill('List the files, please');
    await page.getByRole('button', { name: 'Start session' }).click();
    await expect(page.locator('[data-screen="session"]')).toBeVisible();
    const card = page.locator('section.approval[data-status="pending"]');
    await expect(card).toBeVisible();
    await expect(card).toContainText(MACHINE);
    await expect(card).toContainText(root);
    await card.getByRole('button', { name: 'Allow once' }).click();
    const transcript = page.getByRole('log', { name: 'Transcript' });
    const tool = transcript.locator('details.tool').first();
    await expect(tool).toHaveAttribute('data-status', 'ok');
    await tool.locator('summary').click();
    await expect(tool.locator('.tool-output')).toContainText(MACHINE_ONLY);

    // A terminal from the session opens on the machine, in the session's folder there.
    await page.getByRole('button', { name: 'Terminal', exact: true }).click();
    await expect(page.locator('[data-screen="terminal"]')).toHaveAttribute('data-terminal-status', 'live');
    const terminalRows = page.locator('[data-terminal-view] .xterm-rows');
    await page.locator('[data-terminal-view]').click();
    await page.keyboard.type('ls; pwd');
    await page.keyboard.press('Enter');
    await expect(terminalRows).toContainText(MACHINE_ONLY, { timeout: 20_000 });
    await expect(terminalRows).toContainText(root);
    await page.goBack();
    await expect(page.locator('[data-screen="session"]')).toBeVisible();

    // The machine goes away: the app shows it, and the session on it, as offline.
    const exited = new Promise((resolve) => share!.once('exit', resolve));
    share!.kill('SIGTERM');
    await exited;
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(row).toHaveAttribute('data-machine-status', 'offline');
    await expect(page.locator('[data-session-id] [data-machine-offline]')).toBeVisible();
  });

  test('a revoked token drops the link and the share stops for good', async () => {
    host = await startAppHost();
    machineBase = realpathSync(makeDataDir());
    const root = join(machineBase, 'code');
    mkdirSync(root);
    await startShare(root);
    const tokens = await tetherJson<{ id: string; name: string }[]>(host.dataDir, ['tokens']);
    const token = tokens.find((t) => t.name === MACHINE)!;
    const exited = new Promise<number | null>((resolve) => share!.once('exit', (code) => resolve(code)));
    const revoked = await tether(host.dataDir, ['tokens', 'revoke', token.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('dropped 1 live machine link');
    // Exit code 3: refused for good, not retried.
    expect(await exited).toBe(3);
    expect(shareOut).toMatch(/revoked|refused/i);
    await eventually(async () => {
      const machines = await tetherJson<MachineLine[]>(host.dataDir, ['machines']);
      return machines.find((m) => m.name === MACHINE && m.status === 'offline');
    });
  });

  test('kill -9 of the machine mid-command: the model is told the result is lost, the machine shows offline', async () => {
    machineBase = realpathSync(makeDataDir());
    const pidFile = join(machineBase, 'command.pid');
    // The shell's pid becomes sleep's (exec), so the test can end it afterwards.
    model = await startFakeModel(`echo $$ > ${pidFile}; exec sleep 60`);
    host = await startAppHost({ model: `openai-compatible:fake@${model.url}` });
    const root = join(machineBase, 'code');
    mkdirSync(root);
    await startShare(root);
    const created = await tether(host.dataDir, ['sessions', 'new', '--machine', MACHINE, '--cwd', root, 'go']);
    expect(created.code, created.stderr).toBe(0);
    const sessionId = created.stdout.split('\n')[0]!;
    const approval = await eventually(async () => {
      const waiting = await tetherJson<{ id: string; sessionId: string; place: string }[]>(host.dataDir, ['approvals']);
      return waiting.find((a) => a.sessionId === sessionId);
    });
    expect(approval.place).toBe(MACHINE);
    expect((await tether(host.dataDir, ['approve', approval.id, 'allow'])).code).toBe(0);
    const pid = await eventually(
      () => {
        const text = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : '';
        return /^\d+$/.test(text) ? Number(text) : undefined;
      },
      20_000,
      'the command to start on the machine',
    );
    leftPids.push(pid);

    const exited = new Promise((resolve) => share!.once('exit', resolve));
    share!.kill('SIGKILL');
    await exited;
    const finished = await eventually(
      async () => {
        const events = await tetherJson<{ type: string; ok?: boolean; output?: string }[]>(host.dataDir, [
          'sessions',
          'show',
          sessionId,
        ]);
        return events.find((e) => e.type === 'tool.finished');
      },
      30_000,
      'the tool call to end',
    );
    expect(finished.ok).toBe(false);
    expect(finished.output).toContain('result lost');
    await eventually(async () => {
      const machines = await tetherJson<MachineLine[]>(host.dataDir, ['machines']);
      return machines.find((m) => m.name === MACHINE && m.status === 'offline');
    });
  });
});
