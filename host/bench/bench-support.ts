// Helpers the host's benches share: an idle session to append events to, and the next message of a
// type from a bench's child process.
import type { ChildProcess } from 'node:child_process';
import type { TestHost } from '../test/support/test-host.js';

/** A session whose first run was interrupted at once: idle, its log open for appends. */
export async function idleSession(t: TestHost, text: string): Promise<string> {
  const created = await t.host.parts.sessions.create({ cwd: t.project, text });
  if (!created.ok) throw new Error(created.error.message);
  t.host.parts.sessions.interrupt(created.value.id);
  await t.waitFor(created.value.id, (e) => e.type === 'run.finished');
  return created.value.id;
}

/** The next IPC message `{ t: type, … }` from `child`. */
export function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise<T>((resolve) => {
    const take = (message: { t: string }) => {
      if (message.t !== type) return;
      child.off('message', take);
      resolve(message as T);
    };
    child.on('message', take);
  });
}
