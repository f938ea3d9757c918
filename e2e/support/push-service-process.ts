import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The host's stand-in push service (host/test/support/push-service.ts), run as a process. */
const MAIN = fileURLToPath(new URL('../../host/test/support/push-service-main.ts', import.meta.url));

export interface PushLine {
  endpoint: string;
  ttl: number;
  urgency: string | undefined;
  topic: string | undefined;
  /** The decrypted payload. */
  payload: string;
  status: number;
}

export interface PushServiceProcess {
  origin: string;
  /** The CA the host must trust (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  received: PushLine[];
  subscribe(): Promise<{ endpoint: string; keys: { p256dh: string; auth: string } }>;
  /** Waits for a push matching `predicate` (already received, or to come). */
  next(predicate: (push: PushLine) => boolean, timeoutMs?: number): Promise<PushLine>;
  stop(): Promise<void>;
}

export async function startPushService(): Promise<PushServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(JSON.parse(line) as Record<string, unknown>);
    for (const wake of [...waiters]) wake();
  });
  const waitFor = (predicate: (l: Record<string, unknown>) => boolean, timeoutMs = 15_000, skip = 0) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = lines.slice(skip).find(predicate);
        if (!found) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(
        () => (waiters.delete(check), reject(new Error('push service: nothing came'))),
        timeoutMs,
      );
      if (!check()) waiters.add(check);
    });
  const ready = await waitFor((l) => l.event === 'ready', 30_000);
  const received = (): PushLine[] => lines.filter((l) => l.event === 'push') as unknown as PushLine[];
  return {
    origin: String(ready.origin),
    caFile: String(ready.caFile),
    get received() {
      return received();
    },
    subscribe: async () => {
      const skip = lines.length;
      child.stdin!.write(`${JSON.stringify({ op: 'subscribe' })}\n`);
      const line = await waitFor((l) => l.event === 'subscription', 15_000, skip);
      return line as unknown as { endpoint: string; keys: { p256dh: string; auth: string } };
    },
    next: async (predicate, timeoutMs) =>
      (await waitFor(
        (l) => l.event === 'push' && predicate(l as unknown as PushLine),
        timeoutMs,
      )) as unknown as PushLine,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      await exited;
    },
  };
}
