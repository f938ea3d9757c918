import { parseShareLink } from '@tether/shared-protocol';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../test/support/run-command.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';
import { shareCommand } from './commands/share.js';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost({ remote: LOCAL_REMOTE });
});
afterEach(async () => {
  await t.close();
});

const data = (argv: string[]) => [...argv, '--data-dir', join(t.dir, 'data')];

describe('tether share', () => {
  it('prints a link and its QR code, lists it with its state, and revokes it', async () => {
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    const made = await runCommand(shareCommand, data([id, '--expires', '1h', '--name', 'for the\u202Ereview']));
    expect(made.code, made.err).toBe(0);
    const url = made.out.split('\n').find((line) => line.includes('#view='))!;
    expect(parseShareLink(url).ok).toBe(true);
    expect(made.out).toContain('▀');
    expect(made.out).toContain('It is shown only now.');
    // The line to copy works as printed, an id that starts with a dash included (`--revoke=-…`).
    const revokeWords = /Revoke it: tether share (.+)\n/.exec(made.out)![1]!.split(' ');
    const linkId = revokeWords.at(-1)!.replace(/^--revoke=/, '');

    const listed = await runCommand(shareCommand, data(['--list']));
    expect(listed.out).toMatch(new RegExp(`${linkId}\\s+active\\s+${id}\\s+for the⟨U\\+202E⟩review\\s+0\\s+never`));
    const json = JSON.parse((await runCommand(shareCommand, data(['--list', id, '--json']))).out) as unknown[];
    expect(json).toEqual([expect.objectContaining({ id: linkId, scope: `view:${id}`, createdBy: 'this computer' })]);

    const revoked = await runCommand(shareCommand, data(revokeWords));
    expect(revoked.out).toBe('Revoked.\n');
    expect((await runCommand(shareCommand, data(['--list']))).out).toMatch(new RegExp(`${linkId}\\s+revoked`));
    const unknown = await runCommand(shareCommand, data(['--revoke', 'nope']));
    expect(unknown).toMatchObject({ code: 1, err: expect.stringContaining('(not-found)') as string });
  });

  it.each([[[]], [['s_1', '--revoke', 'x']], [['--list', '--revoke', 'x']], [['s_1', '--expires', '2d']]])(
    'says how to use it: %j',
    async (argv) => {
      const result = await runCommand(shareCommand, data(argv));
      expect(result.code).toBe(2);
      expect(result.err).toMatch(/^tether share: /);
    },
  );
});
