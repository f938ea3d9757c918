import type { KeepAwakeStatus } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { awakeText, maySleep } from './awake-text.js';

const status = (state: KeepAwakeStatus['state'], message = ''): KeepAwakeStatus => ({
  state,
  tool: 'systemd-inhibit',
  since: 0,
  message,
});

describe('whether the computer is kept awake, in words', () => {
  it('says it is kept awake, and by what', () => {
    expect(awakeText(status('holding', '1 run active'))).toEqual({ text: 'kept awake (systemd-inhibit)' });
    expect(awakeText(status('idle'))).toEqual({ text: 'kept awake while a run is going (systemd-inhibit)' });
    expect(awakeText({ ...status('holding'), tool: null })).toEqual({ text: 'kept awake' });
    expect(maySleep(status('holding'))).toBe(false);
    expect(maySleep(status('idle'))).toBe(false);
  });

  it('says when it may sleep mid-run, and why', () => {
    expect(awakeText(status('off'))).toEqual({
      text: 'may sleep mid-run',
      why: 'keeping it awake is turned off there (tether start --no-keep-awake)',
    });
    const failed = status('unavailable', 'systemd-inhibit ended (exit 1): Failed to connect to bus');
    expect(awakeText(failed)).toEqual({ text: 'may sleep mid-run', why: failed.message });
    expect(maySleep(failed)).toBe(true);
    expect(maySleep(status('off'))).toBe(true);
  });
});
