import * as v from 'valibot';
import { Count, Id, Name, Path, Timestamp } from './common.js';

/** `terminals.*`: PTY terminals on the host or a machine. Output arrives as events. */

/** Bytes of output a device may hold unacknowledged: 128 KiB, about a second of a busy program on
 * a slow phone link. Past it the host sends no more to that device (and pauses the program while
 * any attached device is there), so a flood cannot outrun the slowest reader's memory. */
export const TERMINAL_WINDOW_BYTES = 128 * 1024;
/** Bytes of output in one `terminal.output` event: 16 KiB (about 22 KiB as base64url), so other
 * streams on the same connection interleave at a fine grain. */
export const TERMINAL_CHUNK_BYTES = 16 * 1024;
/** A device acknowledges at least every this many bytes it has written to its screen: a quarter
 * of the window, so the host never waits for an acknowledgement with the window still open. */
export const TERMINAL_ACK_BYTES = TERMINAL_WINDOW_BYTES / 4;
/** Milliseconds a device may hold a full window without acknowledging before it is detached from
 * that terminal: 30 s, longer than any screen takes to draw a window, and under the 35 s a dead
 * connection takes to be noticed (ping plus pong wait), after which it would be gone anyway. */
export const TERMINAL_STALL_MS = 30 * 1000;

export const Cols = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000));
export const Rows = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500));

export const TerminalInfoSchema = v.object({
  id: Id,
  /** `local`, or the machine it runs on. */
  machine: Name,
  cwd: Path,
  shell: Path,
  cols: Cols,
  rows: Rows,
  createdAt: Timestamp,
  /** Devices reading it now. */
  attached: Count,
  /** Bytes of output so far: the offset the next output starts at. */
  end: Count,
  status: v.picklist(['running', 'exited']),
  exitCode: v.nullable(v.number()),
  /** The `terminal` session a wrapped program's terminal belongs to (`tether run`). */
  sessionId: v.optional(Id),
});

export const OpenTerminalParams = v.object({
  machine: v.optional(Name),
  cwd: v.optional(Path),
  cols: Cols,
  rows: Rows,
});
export const OpenTerminalResult = v.object({ terminalId: Id, terminal: v.optional(TerminalInfoSchema) });
export const AttachTerminalParams = v.object({
  terminalId: Id,
  /** Output bytes the device already holds; the host replays what it buffered after them. */
  after: v.optional(Count),
  /** Start from the current screen (a `terminal.screen`) instead: a person looking in on it anew. */
  screen: v.optional(v.boolean()),
  /** Send the output as binary messages (terminal-output-frame.ts) rather than base64url in JSON
   * events. A device that leaves it out gets JSON events, as before. */
  binary: v.optional(v.boolean()),
});
export const AttachTerminalResult = v.object({
  /** The offset output starts from on this attachment: `after`, or the screen's when one is sent. */
  offset: Count,
  /** Bytes after `after` the host no longer holds; when not 0, a `terminal.screen` comes first. */
  dropped: Count,
  terminal: TerminalInfoSchema,
});
export const TerminalInputParams = v.object({
  terminalId: Id,
  data: v.pipe(v.string(), v.maxLength(64 * 1024)),
});
export const ResizeTerminalParams = v.object({ terminalId: Id, cols: Cols, rows: Rows });
export const TerminalIdParams = v.object({ terminalId: Id });
/** The device holds (has drawn) every output byte before `offset`. */
export const AckTerminalParams = v.object({ terminalId: Id, offset: Count });
export const ListTerminalsResult = v.object({ terminals: v.array(TerminalInfoSchema) });

export type TerminalInfo = v.InferOutput<typeof TerminalInfoSchema>;
