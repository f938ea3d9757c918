import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';

/**
 * A virtual X screen for a browser that needs one (WebKitGTK's MiniBrowser). Xvfb picks a free
 * display number itself (`-displayfd`: it takes the lock file of the first free one and writes the
 * number once it accepts clients), so parallel workers never collide.
 */
export interface Xvfb {
  /** `:N`, for DISPLAY. */
  display: string;
  pid: number;
  stop(): Promise<void>;
}

/** How long (ms) Xvfb may take to come up: well under a second here, even on a busy machine. */
const START_TIMEOUT_MS = 10_000;

export async function startXvfb(width: number, height: number): Promise<Xvfb> {
  // fd 3 is the pipe Xvfb writes its display number to.
  const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const display = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => fail(new Error(`Xvfb did not start in time: ${stderr}`)), START_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      stop(child);
      reject(error);
    };
    child.once('error', fail);
    void exited.then(() => fail(new Error(`Xvfb exited: ${stderr}`)));
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    pipe.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /^(\d+)\n/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(`:${match[1]}`);
      }
    });
  });
  return {
    display,
    pid: child.pid!,
    stop: async () => {
      stop(child);
      await exited;
    },
  };
}

function stop(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}
