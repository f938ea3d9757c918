import type { AppHost } from '../support/app-host.js';
import { GIT_ENV, git, repoWithRemote } from '../support/git-repo.js';
import { startAppHost } from '../support/app-host.js';
import { tetherJson } from '../support/host-process.js';
import { hashOf, pairByLink } from '../support/webkit-app.js';
import { IPAD } from '../support/webkit-phone.js';
import { expect, test } from '../support/webkit-test.js';

/**
 * Git from Safari's engine on an iPad: a file staged, committed and pushed with the real git to a
 * bare repository standing in for the remote, each command line in the transcript, the remote
 * holding the commit afterwards (app-git.spec.ts does the same in Chromium).
 */

test.describe.configure({ timeout: 180_000 });
test.use({ phoneScreen: IPAD });

let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const PANEL = 'section.git-panel[aria-label="Git"]';
const ROW = `${PANEL} li[data-path="notes.txt"]`;
const GIT = '$ git -c core.hooksPath=/dev/null -c core.fsmonitor=false';

test('stage, commit and push from the phone: the command lines in the transcript, the commit on the remote', async ({
  phone,
}) => {
  host = await startAppHost({ demoDelayMs: 5, env: GIT_ENV });
  const { repo, remote } = repoWithRemote(host.dataDir);

  await pairByLink(phone, host);
  const session = await tetherJson<{ id: string }>(host.dataDir, ['sessions', 'new', 'Say hello', '--cwd', repo]);
  const hash = `${await hashOf(phone)}/s/${encodeURIComponent(session.id)}`;
  await phone.run(`location.hash = ${JSON.stringify(hash)}`);
  await expect.poll(() => phone.shown('[data-screen="session"]')).toBe(true);
  await phone.clickButton('Changes');

  await expect.poll(() => phone.attr(PANEL, 'data-branch')).toBe('main');
  await expect.poll(() => phone.attr(ROW, 'data-staged')).toBe('no');
  await phone.clickButton('notes.txt', ROW);
  await expect
    .poll(async () => (await phone.text(`${PANEL} [data-diff-path="notes.txt"]`)) ?? '')
    .toContain('+from the phone');

  await phone.click(`${ROW} input[type="checkbox"]`);
  await expect.poll(() => phone.attr(ROW, 'data-staged')).toBe('yes');
  await phone.type('#git-message', 'Notes from Safari');
  await phone.clickButton('Commit 1 file', PANEL);
  await expect.poll(async () => (await phone.text(PANEL)) ?? '').toContain('Nothing changed.');
  await expect.poll(() => phone.attr(`${PANEL} [data-ahead]`, 'data-ahead')).toBe('1');
  await phone.clickButton('Push', PANEL);
  await expect.poll(() => phone.attr(`${PANEL} [data-ahead]`, 'data-ahead')).toBe('0');
  expect(git(remote, 'log', '--format=%s', 'main')).toBe('Notes from Safari\nstart\n');

  // The Changes pane stands in the transcript's place: closed, the transcript shows again.
  await phone.clickButton('Changes');
  const transcript = () => phone.text('[role="log"][aria-label="Transcript"]').then((t) => t ?? '');
  await expect.poll(transcript).toContain(`${GIT} --literal-pathspecs add -- notes.txt`);
  await expect.poll(transcript).toContain(`${GIT} commit --quiet --no-edit -m 'Notes from Safari'`);
  await expect.poll(transcript).toContain(`${GIT} push --porcelain origin HEAD:refs/heads/main`);
});
