import { pushFragment } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import type { Route } from './route.js';
import { formatRoute, parentRoute, parseRoute } from './route.js';

describe('routes', () => {
  it('round-trips every screen', () => {
    const routes: Route[] = [
      { name: 'home' },
      { name: 'add' },
      { name: 'add', hostId: 'abc' },
      { name: 'pair' },
      { name: 'waiting' },
      { name: 'host', hostId: 'h1' },
      { name: 'new', hostId: 'h1' },
      { name: 'session', hostId: 'h-_1', sessionId: 's:1.2' },
      { name: 'terminal', hostId: 'h1', terminalId: 't_x-1' },
      { name: 'share', hostId: 'h1', sessionId: 's_1' },
      { name: 'approval', hostId: 'h1', approvalId: 'a_x-1' },
    ];
    for (const route of routes) expect(parseRoute(formatRoute(route))).toEqual(route);
  });

  it('opens the screen a notification names: the host writes these fragments into declarative messages', () => {
    const base = { v: 1, hostId: 'h1', sessionId: 's_1' } as const;
    const approval = { ...base, type: 'resolved', approvalId: 'a_1', status: 'denied', by: '' } as const;
    expect(parseRoute(pushFragment(approval))).toEqual({ name: 'approval', hostId: 'h1', approvalId: 'a_1' });
    const run = { ...base, type: 'run', title: 't', status: 'done', text: '' } as const;
    expect(parseRoute(pushFragment(run))).toEqual({ name: 'session', hostId: 'h1', sessionId: 's_1' });
  });

  it('treats anything unknown as home and stacks screens for back', () => {
    expect(parseRoute('')).toEqual({ name: 'home' });
    expect(parseRoute('#/nowhere/%E0')).toEqual({ name: 'home' });
    expect(parentRoute({ name: 'session', hostId: 'h', sessionId: 's' })).toEqual({ name: 'host', hostId: 'h' });
    expect(parentRoute({ name: 'host', hostId: 'h' })).toEqual({ name: 'home' });
    expect(parentRoute({ name: 'terminal', hostId: 'h', terminalId: 't' })).toEqual({ name: 'host', hostId: 'h' });
    expect(parentRoute({ name: 'share', hostId: 'h', sessionId: 's' })).toEqual({
      name: 'session',
      hostId: 'h',
      sessionId: 's',
    });
  });
});
