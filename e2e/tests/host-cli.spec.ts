import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { HostProcess } from '../support/host-process.js';
import {
  TETHER_BIN,
  eventually,
  hostDataDir,
  makeDataDir,
  removeDataDir,
  startHost,
  tether,
  tetherJson,
} from '../support/host-process.js';

interface Session {
  id: string;
  status: string;
  pendingApprovals: number;
}
interface Approval {
  id: string;
  action: string;
  status: string;
}

let dataDir: string;
let host: HostProcess | undefined;
let project: string;

test.beforeEach(() => {
  dataDir = makeDataDir();
  project = join(dataDir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# demo project\n');
});

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  removeDataDir(dataDir);
});

async function pendingApproval(): Promise<Approval> {
  return eventually(async () => (await tetherJson<Approval[]>(dataDir, ['approvals']))[0], 15_000, 'an approval');
}

test('a new session streams a reply, stops on the shell command, and goes on after approval', async () => {
  host = await startHost(dataDir, [], { TETHER_DEMO_DELAY_MS: '20' });
  expect(host.ready).toMatchObject({
    event: 'ready',
    dataDir: hostDataDir(dataDir),
    controlSocket: join(hostDataDir(dataDir), 'control.sock'),
  });
  const created = await tether(dataDir, ['sessions', 'new', 'hello'], { cwd: project });
  expect(created.code).toBe(0);
  const id = created.stdout.split('\n')[0]!;

  const follow = spawn(process.execPath, [
    TETHER_BIN,
    'sessions',
    'show',
    id,
    '--follow',
    '--data-dir',
    hostDataDir(dataDir),
  ]);
  let out = '';
  follow.stdout.on('data', (c: Buffer) => (out += c.toString()));
  try {
    await eventually(
      () => (out.includes('tether approve ') ? true : undefined),
      15_000,
      'the approval in the followed transcript',
    );
    expect(out).toContain("This is Tether's built-in demo model");
    expect(out).toContain('ls -la');

    const approval = await pendingApproval();
    expect(approval.action).toBe('ls -la');
    const answered = await tether(dataDir, ['approve', approval.id, 'allow']);
    expect(answered).toMatchObject({ code: 0, stdout: 'Allowed.\n' });

    await eventually(() => (out.includes('— run done') ? true : undefined), 15_000, 'the run to finish');
    expect(out).toContain('README.md');
    const again = await tether(dataDir, ['approve', approval.id, 'deny']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already-resolved');
  } finally {
    follow.kill();
  }
  const [session] = await tetherJson<Session[]>(dataDir, ['sessions']);
  expect(session).toMatchObject({ id, status: 'idle', pendingApprovals: 0 });
});

test('a denial with a note reaches the model, and interrupt stops a run', async () => {
  host = await startHost(dataDir, [], { TETHER_DEMO_DELAY_MS: '5' });
  const id = (await tether(dataDir, ['sessions', 'new', 'list things'], { cwd: project })).stdout.split('\n')[0]!;
  const approval = await pendingApproval();
  expect((await tether(dataDir, ['approve', approval.id, 'deny', '--note', 'not now'])).code).toBe(0);
  const transcript = await eventually(async () => {
    const r = await tether(dataDir, ['sessions', 'show', id]);
    return r.stdout.includes('— run done') ? r.stdout : undefined;
  });
  expect(transcript).toContain('denied by this computer: not now');
  expect(transcript).toMatch(/denied/);

  await tether(dataDir, ['sessions', 'send', id, 'try again']);
  await pendingApproval();
  expect((await tether(dataDir, ['sessions', 'interrupt', id])).code).toBe(0);
  const [session] = await eventually(async () => {
    const sessions = await tetherJson<Session[]>(dataDir, ['sessions']);
    return sessions[0]?.status === 'interrupted' ? sessions : undefined;
  });
  expect(session!.pendingApprovals).toBe(0);
});

test('without a running host, commands say so plainly', async () => {
  const r = await tether(dataDir, ['sessions']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('no Tether host is running');
  expect(r.stderr).toContain('tether start');
});

test('usage errors exit 2 and every command has --help', async () => {
  // About 25 `tether` processes in a row, each loading the whole CLI (1.5 to 2 s of CPU apiece
  // on this 2-core machine): the default 60 s is too tight when other work shares the machine.
  test.setTimeout(180_000);
  expect((await tether(dataDir, ['sessions', 'send', 'only-one-arg'])).code).toBe(2);
  expect((await tether(dataDir, ['sessions', '--bogus'])).code).toBe(2);
  expect((await tether(dataDir, ['approve', 'a_x', 'maybe'])).code).toBe(2);
  expect((await tether(dataDir, ['frobnicate'])).code).toBe(2);
  const help = await tether(dataDir, ['--help']);
  expect(help.code).toBe(0);
  const commands = [...help.stdout.matchAll(/^ {2}tether ((?:[a-z-]+ ?)+?)(?: [A-Z"[]|\s{2})/gm)].map((m) =>
    m[1]!.trim(),
  );
  expect(commands).toEqual(
    expect.arrayContaining(['start', 'sessions', 'sessions new', 'sessions show', 'approve', 'approvals']),
  );
  for (const command of commands) {
    const r = await tether(dataDir, [...command.split(' '), '--help']);
    expect(r.code, command).toBe(0);
    expect(r.stdout, command).toContain(`usage: tether ${command}`);
  }
});

test('a second host on the same data dir is refused', async () => {
  host = await startHost(dataDir);
  const second = await tether(dataDir, ['start']);
  expect(second.code).toBe(1);
  expect(second.stderr).toContain('already running');
});
