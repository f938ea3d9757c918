import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { device, pairThroughLink, sessionEvents, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';
import { hostDataDir, tetherJson } from '../support/host-process.js';
import { seeLine, typeLine } from '../support/terminal-screen.js';
import type { TtyProcess } from '../support/tty-process.js';
import { tetherOnTty } from '../support/tty-process.js';

let host: AppHost;
const ttys: TtyProcess[] = [];

// A real shell wrapped by the host, driven from a terminal of the test's own and from the app.
test.setTimeout(120_000);

test.afterEach(async () => {
  for (const tty of ttys.splice(0)) tty.kill();
  await host.stop();
});

/** `tether …` on a terminal of its own, in the host's root folder, against the host's data dir. */
function atComputer([command, ...args]: [string, ...string[]]): TtyProcess {
  // The data dir goes before the rest: after `--`, everything is the program's.
  const tty = tetherOnTty([command, '--data-dir', hostDataDir(host.dataDir), ...args], {
    cwd: host.dataDir,
    env: { PS1: '$ ' },
  });
  ttys.push(tty);
  return tty;
}

test.describe('a wrapped program on a phone', () => {
  test.use(device('iPhone 15'));

  test('tether run -- bash: the phone sees its screen and types into it; detach and attach keep it', async ({
    page,
  }, testInfo) => {
    host = await startAppHost();
    await pairThroughLink(page, host);

    const first = atComputer(['run', '--name', 'work', '--', 'bash', '--norc', '--noprofile']);
    await first.see('$ ');
    first.type('echo typed-$((40+2))\r');
    await first.see('typed-42');

    // The list names it as a terminal; opening it shows the program's screen, live.
    const row = page.locator('[data-screen="sessions"] a.row', { hasText: 'work' });
    await expect(row).toContainText('terminal ·');
    await expect(row.locator('[data-session-status]')).toHaveText('running');
    await row.click();
    const screen = page.locator('[data-screen="terminal"]');
    await expect(screen).toHaveAttribute('data-terminal-status', 'live');
    await expect(screen.locator('.top-bar')).toContainText('work');
    await seeLine(page, /^typed-42$/);
    await typeLine(page, 'echo from-$((1+1))-phone');
    await first.see('from-2-phone');
    await snap(page, testInfo, 'phone-wrapped-program');

    // Ctrl-] at the computer detaches it there; the program goes on, and the phone still types into it.
    first.type('\x1d');
    expect(await first.exit).toBe(0);
    expect(first.screen()).toContain('[detached: work goes on; tether attach work returns to it]');
    await typeLine(page, 'echo still-$((3+4))');
    await seeLine(page, /^still-7$/);

    // Attached again at the computer: the screen as it is, with what the phone typed meanwhile.
    const second = atComputer(['attach', 'work']);
    await second.see('still-7');
    second.type('exit 3\r');
    expect(await second.exit).toBe(3);
    await expect(page.locator('[data-screen="terminal"] [data-terminal-state]')).toHaveText('exited (3)');
    const sessions = await tetherJson<{ id: string; title: string; status: string }[]>(host.dataDir, ['sessions']);
    const work = sessions.find((s) => s.title === 'work')!;
    expect(work.status).toBe('error');
    const notices = (await sessionEvents(host, work.id)).filter((e) => e.type === 'notice').map((e) => e.text);
    expect(notices).toEqual([expect.stringContaining('Started '), 'work exited with code 3.']);
  });

  test('a program stopped at a question shows "waiting for you" with the question, and goes on once answered', async ({
    page,
  }) => {
    host = await startAppHost();
    await pairThroughLink(page, host);
    const script = 'printf "Overwrite notes.txt? [y/N] "; read answer; echo "answered-$answer"; sleep 60';
    const started = atComputer(['run', '--detached', '--name', 'asker', '--', 'sh', '-c', script]);
    expect(await started.exit).toBe(0);

    const row = page.locator('[data-screen="sessions"] a.row', { hasText: 'asker' });
    await expect(row.locator('[data-session-status]')).toHaveText('waiting for you');
    await expect(row).toContainText('Overwrite notes.txt? [y/N]');
    await row.click();
    await expect(page.locator('[data-session-waiting]')).toHaveText('Waiting for you: Overwrite notes.txt? [y/N]');
    await typeLine(page, 'y');
    await seeLine(page, /^answered-y$/);
    await expect(page.locator('[data-session-waiting]')).toBeHidden();
    await expect(page.locator('[data-screen="terminal"] [data-session-status]')).toHaveText('running');
  });
});
