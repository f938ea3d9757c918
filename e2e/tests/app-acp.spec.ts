import { expect, test } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppHost } from '../support/app-host.js';
import { device, pairThroughLink, sessionEvents, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';
import { tether } from '../support/host-process.js';

/** The scripted ACP agent of the host's tests: each line of a prompt is one step it takes. */
const SCRIPTED_AGENT = fileURLToPath(new URL('../../host/test/fixtures/acp-scripted-agent.mjs', import.meta.url));

let host: AppHost;

test.afterEach(async () => {
  await host.stop();
});

test.describe('an ACP agent session on a phone', () => {
  test.use(device('iPhone 15'));

  test('started from the phone, it shows the plan and the diff, and its permission request is answered there', async ({
    page,
  }) => {
    host = await startAppHost({
      agents: {
        scripted: { title: 'Scripted agent', command: process.execPath, args: [SCRIPTED_AGENT] },
        absent: { title: 'Absent agent', command: 'tether-no-such-acp-agent' },
      },
    });
    const project = join(host.dataDir, 'project');
    mkdirSync(project);
    await pairThroughLink(page, host);
    await page.getByRole('button', { name: 'New session' }).click();
    const agent = page.getByLabel('Agent', { exact: true });
    // Only agents the host can start are offered; with one chosen there is no model to pick.
    await expect(agent.locator('option')).toHaveText(['Tether', 'Scripted agent']);
    await agent.selectOption({ label: 'Scripted agent' });
    await expect(page.getByLabel('Model', { exact: true })).toBeHidden();
    await page.getByLabel('Folder', { exact: true }).fill(project);
    await page
      .getByLabel('First message')
      .fill(
        [
          'plan look around | write the file',
          'tool-diff notes.txt',
          'ask-edit phone.txt written from the phone',
          'plan-done',
          'say all done',
        ].join('\n'),
      );
    await page.getByRole('button', { name: 'Start session' }).click();
    await expect(page.locator('[data-screen="session"]')).toBeVisible();
    await expect.poll(() => /\/s\/([^/]+)$/.test(new URL(page.url()).hash)).toBe(true);
    const sessionId = decodeURIComponent(/\/s\/([^/]+)$/.exec(new URL(page.url()).hash)![1]!);

    const transcript = page.getByRole('log', { name: 'Transcript' });
    const plan = transcript.locator('section.plan');
    await expect(plan.locator('li')).toHaveText(['▶ look around', '☐ write the file']);

    const card = page.locator('section.approval[data-status="pending"]');
    await expect(card).toBeVisible();
    await expect(card.locator('.action')).toContainText('Scripted agent asks: Write phone.txt');
    await expect(card.locator('.action')).toContainText('+written from the phone');
    await card.getByRole('button', { name: 'Allow once' }).click();

    await expect(transcript.locator('[data-run-status="done"]')).toBeVisible();
    // The plan was replaced in place, not added again.
    await expect(plan.locator('li')).toHaveText(['☑ look around', '☑ write the file']);
    await expect(transcript.locator('section.plan')).toHaveCount(1);
    await expect(transcript.locator('.msg.assistant').last()).toContainText('all done');
    const edit = transcript.locator('details.tool').first();
    await edit.locator('summary').click();
    await expect(edit.locator('.tool-diff .diff-del')).toHaveText('-old line');
    await expect(edit.locator('.tool-diff .diff-add')).toHaveText('+new line');

    expect(readFileSync(join(project, 'phone.txt'), 'utf8')).toBe('written from the phone');
    const events = await sessionEvents(host, sessionId);
    const resolved = events.find((e) => e.type === 'approval.resolved') as
      { approval: { answeredBy?: { kind: string } } } | undefined;
    expect(resolved?.approval.answeredBy?.kind).toBe('device');
  });
});

test.describe('with no agent installed, on a phone', () => {
  test.use(device('iPhone 15'));

  test('New session names the agents the computer could run, how to add one, and that earlier sessions continue', async ({
    page,
  }, testInfo) => {
    // Nothing on PATH: none of the ready agents is found.
    host = await startAppHost({ env: { PATH: '/nonexistent-tether-path' } });
    await pairThroughLink(page, host);
    await page.getByRole('button', { name: 'New session' }).click();
    await expect(page.getByLabel('Agent', { exact: true })).toHaveCount(0);
    const hint = page.getByRole('region', { name: 'Agents' });
    await expect(hint.locator('li[data-agent]')).toHaveCount(3);
    await expect(hint.locator('[data-agent="claude-code"]')).toContainText(
      'Claude Code: npm install -g @zed-industries/claude-code-acp',
    );
    await expect(hint.locator('[data-agent="codex"]')).toContainText('Codex: npm install -g @zed-industries/codex-acp');
    await expect(hint.locator('[data-agent="gemini"]')).toContainText('Gemini CLI: npm install -g @google/gemini-cli');
    await expect(hint).toContainText('tether agents');
    await expect(hint).toContainText('its earlier sessions in the folder, started at the computer, can be continued');
    await snap(page, testInfo, 'phone-new-session-no-agent');
    // The computer says the same.
    const listed = await tether(host.dataDir, ['agents']);
    expect(listed.stdout).toContain('To add Claude Code: npm install -g @zed-industries/claude-code-acp');
  });
});
