import { expect, test } from '@playwright/test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppHost } from '../support/app-host.js';
import { device, pairThroughLink, startAppHost } from '../support/app-host.js';

/** The scripted ACP agent of the host's tests; it lists, loads and resumes what its state dir holds. */
const SCRIPTED_AGENT = fileURLToPath(new URL('../../host/test/fixtures/acp-scripted-agent.mjs', import.meta.url));

let host: AppHost;
let state: string;

test.beforeEach(() => {
  state = mkdtempSync(join(tmpdir(), 'tether-e2e-acp-state-'));
});

test.afterEach(async () => {
  await host.stop();
  rmSync(state, { recursive: true, force: true });
});

/** Sessions of the agent "started at the computer", stored where it keeps them. */
function storeSessions(project: string): void {
  const store = (id: string, saved: object) => writeFileSync(join(state, `${id}.json`), JSON.stringify(saved));
  store('desk-older', {
    cwd: project,
    // A title with a direction override in it: the app shows the character, it does not obey it.
    title: 'Deploy \u202Eevil the app',
    updatedAt: '2026-11-01T09:00:00.000Z',
    prompts: ['deploy the app'],
  });
  store('desk-newer', {
    cwd: project,
    title: 'Fix the flaky test',
    updatedAt: new Date(Date.now() - 3 * 3600_000).toISOString(),
    prompts: ['fix the flaky test'],
    history: [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'fix the flaky test' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'The wait was too short.' } },
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'desk-1',
        title: 'Edit test.js',
        kind: 'edit',
        status: 'completed',
        content: [{ type: 'diff', path: join(project, 'test.js'), oldText: 'wait(10)\n', newText: 'wait(100)\n' }],
      },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Fixed: it waits 100 ms now.' } },
    ],
  });
}

test.describe('a session started at the computer, continued on a phone', () => {
  test.use(device('iPhone 15'));

  test('the phone lists the agent’s sessions for the folder, continues one with its history, and steers it', async ({
    page,
  }) => {
    host = await startAppHost({
      agents: {
        scripted: {
          title: 'Scripted agent',
          command: process.execPath,
          args: [SCRIPTED_AGENT],
          env: { SCRIPTED_ACP_LOAD: '1', SCRIPTED_ACP_LIST: '1', SCRIPTED_ACP_STATE_DIR: state },
        },
      },
    });
    const project = join(host.dataDir, 'project');
    mkdirSync(project);
    storeSessions(project);
    await pairThroughLink(page, host);
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByLabel('Agent', { exact: true }).selectOption({ label: 'Scripted agent' });
    await page.getByLabel('Folder', { exact: true }).fill(project);
    await page.getByRole('button', { name: 'Earlier sessions of Scripted agent in this folder' }).click();

    const list = page.getByRole('list', { name: 'Sessions of Scripted agent' });
    await expect(list.getByRole('listitem')).toHaveCount(2);
    // Newest first, with when and where.
    await expect(list.getByRole('listitem').first()).toContainText('Fix the flaky test');
    await expect(list.getByRole('listitem').first()).toContainText('3 h ago · this folder');
    // The hidden character in the other title is a visible mark.
    await expect(list.getByRole('listitem').nth(1).locator('.hidden-char')).toHaveCount(1);

    await list.getByRole('button', { name: /Fix the flaky test/ }).click();
    await expect(page.locator('[data-screen="session"]')).toBeVisible();
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect(transcript.locator('.msg.user').first()).toContainText('fix the flaky test');
    await expect(transcript.locator('.msg.assistant').last()).toContainText('Fixed: it waits 100 ms now.');
    await expect(transcript.locator('details.tool')).toHaveCount(1);
    await expect(transcript.locator('[data-run-status="done"]')).toBeVisible();
    // Tokens an agent does not report are unknown, not 0.
    await expect(page.getByRole('region', { name: 'Run at a glance' })).toContainText('not reported');

    // New turns are live, in the same session of the agent.
    await page.getByLabel('Message', { exact: true }).fill('whoami');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(transcript.locator('.msg.assistant').last()).toContainText('session desk-newer (loaded), prompt 2');

    // Back on the new-session screen, the session says it is open in Tether, and opens it.
    const sessionUrl = page.url();
    await page.goBack();
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByLabel('Agent', { exact: true }).selectOption({ label: 'Scripted agent' });
    await page.getByLabel('Folder', { exact: true }).fill(project);
    await page.getByRole('button', { name: 'Earlier sessions of Scripted agent in this folder' }).click();
    const again = page.getByRole('list', { name: 'Sessions of Scripted agent' }).getByRole('listitem').first();
    await expect(again).toContainText('open in Tether');
    await again.getByRole('button').click();
    await expect.poll(() => page.url()).toBe(sessionUrl);
  });

  test('an agent that cannot list its sessions: the screen says continuing is not available for it', async ({
    page,
  }) => {
    host = await startAppHost({
      agents: {
        scripted: {
          title: 'Scripted agent',
          command: process.execPath,
          args: [SCRIPTED_AGENT],
          env: { SCRIPTED_ACP_LOAD: '1', SCRIPTED_ACP_STATE_DIR: state },
        },
      },
    });
    const project = join(host.dataDir, 'project');
    mkdirSync(project);
    await pairThroughLink(page, host);
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByLabel('Agent', { exact: true }).selectOption({ label: 'Scripted agent' });
    await page.getByLabel('Folder', { exact: true }).fill(project);
    await page.getByRole('button', { name: 'Earlier sessions of Scripted agent in this folder' }).click();
    await expect(page.locator('[data-continue="unavailable"]')).toHaveText(
      "Continuing isn't available for Scripted agent: Scripted agent does not list its earlier sessions (no ACP session/list)",
    );
    // Starting a new session with it still works.
    await expect(page.getByRole('button', { name: 'Start session' })).toBeVisible();
  });
});
