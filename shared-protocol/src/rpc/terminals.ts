import * as v from 'valibot';
import { Count, Id, Name, Path } from './common.js';

/** `terminals.*`: PTY terminals on the host or a machine. Output arrives as events. */

const Cols = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000));
const Rows = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500));

export const OpenTerminalParams = v.object({
  machine: v.optional(Name),
  cwd: v.optional(Path),
  cols: Cols,
  rows: Rows,
});
export const OpenTerminalResult = v.object({ terminalId: Id });
export const AttachTerminalParams = v.object({
  terminalId: Id,
  /** Output bytes the device already holds; the host replays what it buffered after them. */
  after: v.optional(Count),
});
export const TerminalInputParams = v.object({
  terminalId: Id,
  data: v.pipe(v.string(), v.maxLength(64 * 1024)),
});
export const ResizeTerminalParams = v.object({ terminalId: Id, cols: Cols, rows: Rows });
export const TerminalIdParams = v.object({ terminalId: Id });
