import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Xvfb } from './xvfb.js';

/**
 * WebKitWebDriver as a process: started on a free loopback port in a process group of its own
 * (with MiniBrowser and WebKit's helpers under it), and stopped by killing that group.
 */

/** How long (ms) WebKitWebDriver may take to answer /status: well under a second here. */
const DRIVER_START_TIMEOUT_MS = 10_000;
/** How long (ms) a stopping process group gets after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 3_000;

export interface DriverProcess {
  url: string;
  /** The process group of the driver, MiniBrowser and WebKit's helpers. */
  group: number;
  stop(): Promise<void>;
}

/**
 * WebKitWebDriver on a free loopback port, in its own process group with MiniBrowser and WebKit's
 * helper processes under it: stopping kills the group, so nothing is left behind.
 */
export async function startDriverProcess(xvfb: Xvfb): Promise<DriverProcess> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn('WebKitWebDriver', [`--port=${port}`, '--host=local'], {
      env: { ...process.env, DISPLAY: xvfb.display },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.once('error', () => undefined);
    const url = `http://127.0.0.1:${port}`;
    const stop = () => stopGroup(child, exited);
    if (await answers(url, exited)) return { url, group: child.pid!, stop };
    await stop();
    // The port was taken between the check and the start: try another, a few times.
    if (attempt >= 2) throw new Error(`WebKitWebDriver did not start: ${output}`);
  }
}

async function answers(url: string, exited: Promise<void>): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + DRIVER_START_TIMEOUT_MS;
  while (!gone && Date.now() < deadline) {
    const ok = await fetch(`${url}/status`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function stopGroup(child: ChildProcess, exited: Promise<void>): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // The group is gone already.
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
  // The driver is gone; MiniBrowser and WebKit's helpers may still be closing in its group.
  const deadline = Date.now() + STOP_GRACE_MS;
  while (liveInGroup(child.pid!).length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  signal('SIGKILL');
}

/**
 * The processes of group `pgid` that still run (Linux `/proc`). An exited one waiting to be
 * reaped (a zombie, handed to init once its parent is gone) runs nothing and is not counted.
 */
export function liveInGroup(pgid: number): number[] {
  const live: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') live.push(Number(entry));
  }
  return live;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
