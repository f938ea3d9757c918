import { readFileSync } from 'node:fs';

/** Clock ticks a second in /proc's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (user and system) a process has spent so far, in ms; 0 once it is gone. */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command may hold spaces and parentheses: the fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Each process's CPU time so far (ms), by pid. */
export function cpuSample(pids: readonly (number | undefined)[]): Map<number, number> {
  const sample = new Map<number, number>();
  for (const pid of pids) if (pid !== undefined) sample.set(pid, cpuMs(pid));
  return sample;
}

/** CPU spent between two samples (ms), by the processes in either: one started between them
 * counts from zero, one gone by the second adds nothing more (its last moments are not seen). */
export function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of after) spent += Math.max(0, ms - (before.get(pid) ?? 0));
  return spent;
}
