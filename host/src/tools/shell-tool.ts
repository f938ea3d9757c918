import * as v from 'valibot';
import { parseInput } from './parse-input.js';
import type { Tool } from './tool.js';
import { failedOutcome } from './tool.js';

/** Default and longest allowed run of a command, in seconds. */
const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 1800;
/** Bytes of output kept for the model and the transcript (head and tail). */
export const SHELL_OUTPUT_BYTES = 30_000;

const Input = v.object({
  command: v.pipe(v.string(), v.minLength(1), v.maxLength(100_000)),
  timeout_seconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_TIMEOUT_S))),
});

export const shellTool: Tool<v.InferOutput<typeof Input>> = {
  spec: {
    name: 'shell',
    description:
      "Run a shell command (/bin/sh -c) in the session's folder. Output (stdout and stderr together) is " +
      `kept to ${SHELL_OUTPUT_BYTES} bytes, first and last parts. Stdin is closed. Every command needs the person's approval.`,
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line to run.' },
        timeout_seconds: {
          type: 'integer',
          description: `Seconds before the command is killed (default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S}).`,
        },
      },
      required: ['command'],
    },
  },
  parse: (input) => parseInput(Input, input),
  title: (input) => input.command.split('\n')[0]!.slice(0, 200),
  approval: (input) => Promise.resolve({ need: { kind: 'shell', action: input.command, command: input.command } }),
  async run(input, context) {
    const ran = await context.exec.exec({
      command: input.command,
      cwd: context.cwd,
      timeoutMs: (input.timeout_seconds ?? DEFAULT_TIMEOUT_S) * 1000,
      maxOutputBytes: SHELL_OUTPUT_BYTES,
      signal: context.signal,
    });
    if (!ran.ok) return failedOutcome(ran.error);
    const result = ran.value;
    const status = result.timedOut
      ? `timed out after ${input.timeout_seconds ?? DEFAULT_TIMEOUT_S} s and was killed`
      : result.aborted
        ? 'was interrupted'
        : result.exitCode !== null
          ? `exit code ${result.exitCode}`
          : `killed by ${result.signal ?? 'a signal'}`;
    return {
      ok: result.exitCode === 0 && !result.timedOut && !result.aborted,
      output: `[${status}]\n${result.output}`,
      truncated: result.droppedBytes > 0,
      exitCode: result.exitCode,
    };
  },
};
