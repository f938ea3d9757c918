import type { KeepAwakeStatus } from '@tether/shared-protocol';

/** Whether the computer may fall asleep in the middle of a run: nothing holds it awake. */
export function maySleep(awake: KeepAwakeStatus): boolean {
  return awake.state === 'off' || awake.state === 'unavailable';
}

/**
 * Whether the computer is kept awake, as `tether status` says it: "kept awake (systemd-inhibit)",
 * or that it may sleep mid-run, and why. The why is the host's (an inhibitor's own error output
 * can be in it): shown as text, its hidden characters marked.
 */
export function awakeText(awake: KeepAwakeStatus): { text: string; why?: string } {
  const tool = awake.tool ? ` (${awake.tool})` : '';
  switch (awake.state) {
    case 'holding':
      return { text: `kept awake${tool}` };
    case 'idle':
      return { text: `kept awake while a run is going${tool}` };
    case 'off':
      return { text: 'may sleep mid-run', why: 'keeping it awake is turned off there (tether start --no-keep-awake)' };
    case 'unavailable':
      return { text: 'may sleep mid-run', why: awake.message };
  }
}
