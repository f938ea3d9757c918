import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { GIT_ENV, git, repoWithRemote } from '../support/git-repo.js';
import { device, pairThroughLink, startAppHost } from '../support/app-host.js';
import { tetherJson } from '../support/host-process.js';

/**
 * Git from the phone (an iPad, the Changes pane beside the transcript): a file staged, committed
 * and pushed with the real git to a bare repository standing in for the remote, each command line
 * in the transcript, and the remote holding the commit afterwards.
 */

let host: AppHost | undefined;

test.describe.configure({ timeout: 180_000 });

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

test.describe('on an iPad', () => {
  test.use(device('iPad Pro 11'));

  test('stage, commit and push from the phone: the command lines in the transcript, the commit on the remote', async ({
    page,
  }) => {
    host = await startAppHost({ demoDelayMs: 5, env: GIT_ENV });
    const { repo, remote } = repoWithRemote(host.dataDir);

    await pairThroughLink(page, host);
    const session = await tetherJson<{ id: string }>(host.dataDir, ['sessions', 'new', 'Say hello', '--cwd', repo]);
    await page.goto(`${page.url()}/s/${encodeURIComponent(session.id)}`);
    await expect(page.locator('[data-screen="session"]')).toBeVisible();
    await page.getByRole('button', { name: 'Changes' }).click();

    const panel = page.getByRole('region', { name: 'Git' });
    await expect(panel).toHaveAttribute('data-branch', 'main');
    const row = panel.locator('li[data-path="notes.txt"]');
    await expect(row).toHaveAttribute('data-staged', 'no');
    await row.getByRole('button', { name: 'notes.txt' }).click();
    await expect(panel.locator('[data-diff-path="notes.txt"] .diff-add')).toContainText(['+from the phone']);

    await panel.getByRole('checkbox', { name: 'Stage notes.txt' }).click();
    await expect(row).toHaveAttribute('data-staged', 'yes');
    await panel.getByLabel('Commit message').fill('Notes from the phone');
    await panel.getByRole('button', { name: /^Commit/ }).click();
    await expect(panel.getByText('Nothing changed.')).toBeVisible();
    await expect(panel.locator('[data-ahead]')).toHaveAttribute('data-ahead', '1');
    await panel.getByRole('button', { name: 'Push' }).click();
    await expect(panel.locator('[data-ahead]')).toHaveAttribute('data-ahead', '0');

    // The Changes pane stands in the transcript's place: closed, the transcript shows again.
    await page.getByRole('button', { name: 'Changes' }).click();
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect(
      transcript.getByText(
        '$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false --literal-pathspecs add -- notes.txt',
      ),
    ).toBeVisible();
    await expect(
      transcript.getByText(
        "$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false commit --quiet --no-edit -m 'Notes from the phone'",
      ),
    ).toBeVisible();
    await expect(
      transcript.getByText(
        '$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false push --porcelain origin HEAD:refs/heads/main',
      ),
    ).toBeVisible();
    expect(git(remote, 'log', '--format=%s', 'main')).toBe('Notes from the phone\nstart\n');
  });
});
