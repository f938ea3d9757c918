import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../test/support/run-command.js';
import type { TestHost } from '../../test/support/test-host.js';
import { startTestHost } from '../../test/support/test-host.js';
import { sessionsNotifyCommand } from './commands/sessions-notify.js';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
});
afterEach(async () => {
  await t.close();
});

describe('tether sessions notify', () => {
  it('sets when devices are notified of a session, kept with the session and shown in its summary', async () => {
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    expect(t.host.parts.sessions.get(id)?.notify).toBe('needs');
    const argv = (level: string) => [id, level, '--data-dir', join(t.dir, 'data')];

    const done = await runCommand(sessionsNotifyCommand, argv('done'));
    expect(done.code, done.err).toBe(0);
    expect(done.out).toContain('when a run finishes');
    expect(t.host.parts.sessions.get(id)?.notify).toBe('done');

    const off = await runCommand(sessionsNotifyCommand, argv('off'));
    expect(off.out).toContain('not notified');
    expect(t.host.parts.sessions.get(id)?.notify).toBe('off');
  });

  it('refuses a level it does not know, and a session that does not exist', async () => {
    const data = join(t.dir, 'data');
    const wrong = await runCommand(sessionsNotifyCommand, ['s_x', 'loud', '--data-dir', data]);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('needs, done or off');
    const missing = await runCommand(sessionsNotifyCommand, ['s_missing', 'off', '--data-dir', data]);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain('s_missing');
  });
});
