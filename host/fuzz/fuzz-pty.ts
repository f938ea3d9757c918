import type { PtyPort, PtyProcess, PtySpawn } from '@tether/machine';
import { ok } from '@tether/shared-protocol';

type Exit = Parameters<Parameters<PtyProcess['onExit']>[0]>[0];

/**
 * PTYs that run nothing, for the machine-link fuzzer: each spawn is recorded (where it would have
 * run) and ends when killed or when `endAll` is called, so terminals never pile up past the
 * machine's bound. (The unit tests' FakePtyPort is not part of the built package.)
 */
export class FuzzPtyPort implements PtyPort {
  last: PtySpawn | undefined;
  private readonly live = new Set<() => void>();
  private nextPid = 1000;

  spawn(request: PtySpawn): ReturnType<PtyPort['spawn']> {
    this.last = request;
    const exits: ((exit: Exit) => void)[] = [];
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.live.delete(end);
      for (const listener of exits) listener({ code: 0, signal: null });
    };
    this.live.add(end);
    const pty: PtyProcess = {
      pid: this.nextPid++,
      onData: () => undefined,
      onExit: (listener) => void exits.push(listener),
      write: () => undefined,
      pendingInput: () => 0,
      resize: () => undefined,
      pause: () => undefined,
      resume: () => undefined,
      kill: () => queueMicrotask(end),
    };
    return ok(pty);
  }

  endAll(): void {
    for (const end of [...this.live]) end();
  }
}
