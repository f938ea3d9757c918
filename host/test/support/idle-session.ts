import type { TestHost } from './test-host.js';

/** A session whose first run was interrupted at once: idle, its log open for appends. */
export async function idleSession(t: TestHost, text: string): Promise<string> {
  const created = await t.host.parts.sessions.create({ cwd: t.project, text });
  if (!created.ok) throw new Error(created.error.message);
  t.host.parts.sessions.interrupt(created.value.id);
  await t.waitFor(created.value.id, (e) => e.type === 'run.finished');
  return created.value.id;
}
