import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../test/support/run-command.js';
import type { TestHost } from '../../test/support/test-host.js';
import { startTestHost } from '../../test/support/test-host.js';
import { makePng } from '../../test/support/test-image.js';
import { sessionsSendCommand, sessionsShowCommand } from './commands/sessions.js';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
});
afterEach(async () => {
  await t.close();
});

async function idleSession(): Promise<string> {
  const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
  if (!created.ok) throw new Error(created.error.message);
  await t.waitFor(created.value.id, (e) => e.type === 'approval.requested');
  t.host.parts.sessions.interrupt(created.value.id);
  await t.waitFor(created.value.id, (e) => e.type === 'run.finished');
  return created.value.id;
}

describe('tether sessions send --attach', () => {
  it('uploads each file over the control socket, the model receives them, and sessions show names them', async () => {
    const id = await idleSession();
    const data = join(t.dir, 'data');
    const photo = join(t.dir, 'screen shot.png');
    const png = makePng(30, 20);
    writeFileSync(photo, png);
    const notes = join(t.dir, 'notes.md');
    writeFileSync(notes, 'line one\nline two\n');
    const sent = await runCommand(sessionsSendCommand, [
      id,
      'look',
      '--attach',
      photo,
      '--attach',
      notes,
      '--data-dir',
      data,
    ]);
    expect(sent.code, sent.err).toBe(0);
    await t.waitFor(id, (e) => e.type === 'message' && e.role === 'assistant' && e.text.includes('received'));
    const shown = await runCommand(sessionsShowCommand, [id, '--data-dir', data]);
    expect(shown.out).toContain('› look');
    expect(shown.out).toContain('📎 screen shot.png (image/png, ');
    expect(shown.out).toContain('📎 notes.md (text/markdown, 18 B)');
    expect(shown.out).toContain(`I received an image, screen shot.png (image/png, ${png.length} bytes)`);
  });

  it('refuses a file of a type it cannot attach, and a missing file, sending nothing', async () => {
    const id = await idleSession();
    const data = join(t.dir, 'data');
    const zip = join(t.dir, 'a.zip');
    writeFileSync(zip, 'PK');
    const before = t.events(id).length;
    const wrong = await runCommand(sessionsSendCommand, [id, 'x', '--attach', zip, '--data-dir', data]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('(unsupported)');
    const missing = await runCommand(sessionsSendCommand, [
      id,
      '--attach',
      join(t.dir, 'nope.png'),
      '--data-dir',
      data,
    ]);
    expect(missing.err).toContain('(not-found)');
    expect(t.events(id)).toHaveLength(before);
  });
});
