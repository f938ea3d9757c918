import { Writable } from 'node:stream';
import { parseArgs } from '../../src/cli/args.js';
import type { Command } from '../../src/cli/command.js';

/** A stream that keeps what is written to it. */
export function collector(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

/** Runs one `tether` command in this process, as `main` would after parsing `argv`. */
export async function runCommand(
  command: Command,
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string; err: string }> {
  const parsed = parseArgs(argv, command.options);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const out = collector();
  const err = collector();
  const code = await command.run({ args: parsed.value, stdout: out.stream, stderr: err.stream, env });
  return { code, out: out.text(), err: err.text() };
}
