// Helpers the host's benches share: a percentile, an idle session to append events to, and the next
// message of a type from a bench's child process.
import type { ChildProcess } from 'node:child_process';
import type { TestHost } from '../test/support/test-host.js';

/** The `p`th percentile of `values` (nearest rank, 0 for none). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

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
