import { spawn } from 'node:child_process';
import { TETHER_BIN, eventually } from './host-process.js';

/** A `tether …` command on a real terminal of its own (a PTY made by `script`), as a person runs it. */
export interface TtyProcess {
  /** Bytes as typed at the keyboard (`\r` for Enter, `\x1d` for Ctrl-]). */
  type(keys: string): void;
  /** Everything the terminal showed so far, escape sequences and all. */
  screen(): string;
  /** Resolves once the screen shows `text`. */
  see(text: string, timeoutMs?: number): Promise<void>;
  /** The command's exit code. */
  exit: Promise<number | null>;
  kill(): void;
}

export function tetherOnTty(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): TtyProcess {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, TETHER_BIN, ...args].map(quote).join(' ');
  // -e: script exits with the command's code; -f: output as it comes; the typescript goes nowhere.
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    type: (keys) => void child.stdin.write(keys),
    screen: () => text,
    see: async (wanted, timeoutMs = 15_000) => {
      await eventually(() => (text.includes(wanted) ? true : undefined), timeoutMs, `"${wanted}" on the terminal`);
    },
    exit,
    kill: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
