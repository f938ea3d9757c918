import * as v from 'valibot';
import { Name, Timestamp } from './common.js';

/**
 * Whether the host keeps its computer awake: a sleep inhibitor (`systemd-inhibit`, `caffeinate`)
 * is held while a run is active or a terminal attached. Said by `host.info`, by the `awake.status`
 * host event each time it changes, and by `tether status`. `off`: turned off (`--no-keep-awake`);
 * `idle`: nothing to keep awake for now; `holding`: held; `unavailable`: there is no inhibitor on
 * this system, or it failed (`message` says why, and it is not tried again until the host
 * restarts). Either of the last two means the computer may sleep mid-run.
 */
export const KeepAwakeSchema = v.object({
  state: v.picklist(['off', 'idle', 'holding', 'unavailable']),
  /** The inhibitor's program, when there is one for this system. */
  tool: v.nullable(Name),
  /** When it reached this state (ms since the epoch). */
  since: Timestamp,
  message: v.pipe(v.string(), v.maxLength(2000)),
});

export type KeepAwakeStatus = v.InferOutput<typeof KeepAwakeSchema>;
