// Helpers the host's benches share: an idle session to append events to (the tests' own), and the
// next message of a type from a bench's child process.
import type { ChildProcess } from 'node:child_process';
export { idleSession } from '../test/support/idle-session.js';

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
