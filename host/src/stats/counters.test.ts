import { describe, expect, it } from 'vitest';
import { PushCounters } from '../push/push-counters.js';
import { Counters } from './counters.js';
import { HOST_COUNTER_NAMES, HostCounters } from './host-counters.js';

describe('Counters', () => {
  it('registers every name at zero, and shows only those that moved', () => {
    const counters = new Counters(['a:one', 'a:two', 'b'] as const);
    expect(counters.all()).toEqual({ 'a:one': 0, 'a:two': 0, b: 0 });
    expect(counters.snapshot()).toEqual({});
    counters.add('b');
    counters.add('a:two', 3);
    expect(counters.snapshot()).toEqual({ 'a:two': 3, b: 1 });
    expect(counters.get('a:one')).toBe(0);
  });

  it('refuses a name that is not on the list', () => {
    const counters = new Counters(['a'] as const);
    expect(counters.has('b')).toBe(false);
    expect(() => counters.add('b' as 'a')).toThrow('counter b is not on the list');
  });

  it("lists the host's counters once each, the error-code ones included", () => {
    expect(new Set(HOST_COUNTER_NAMES).size).toBe(HOST_COUNTER_NAMES.length);
    const host = new HostCounters();
    expect(host.has('request:forbidden')).toBe(true);
    expect(host.has('ws:bad-origin')).toBe(true);
    expect(host.has('request:whatever')).toBe(false);
  });

  it('counts a push refused for good under its status, or as other when the status is not a refusal', () => {
    const push = new PushCounters();
    push.addRejected('http-403');
    push.addRejected('bad-subscription: no keys');
    push.addRejected('http-302');
    expect(push.snapshot()).toEqual({
      'push:rejected:bad-subscription': 1,
      'push:rejected:http-403': 1,
      'push:rejected:http-other': 1,
    });
  });
});
