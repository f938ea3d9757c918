import { describe, expect, it } from 'vitest';
import { keepAwakeLine } from './commands/status.js';

describe('tether status: keep awake', () => {
  it('says what the inhibitor does, or why there is none', () => {
    const since = Date.now() - 120_000;
    expect(keepAwakeLine({ state: 'holding', tool: 'systemd-inhibit', since, message: '1 run active' })).toMatch(
      /^holding \(systemd-inhibit\) since .+: 1 run active$/,
    );
    expect(keepAwakeLine({ state: 'idle', tool: 'caffeinate', since, message: 'nothing running' })).toBe(
      'ready (caffeinate), nothing running',
    );
    expect(keepAwakeLine({ state: 'off', tool: 'caffeinate', since, message: '' })).toBe(
      'off (--no-keep-awake): the computer may sleep mid-run',
    );
    expect(
      keepAwakeLine({
        state: 'unavailable',
        tool: 'systemd-inhibit',
        since,
        message: 'systemd-inhibit is not installed',
      }),
    ).toBe('unavailable: systemd-inhibit is not installed');
  });
});
