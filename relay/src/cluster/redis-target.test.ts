import { describe, expect, it } from 'vitest';
import { redactUrl } from '../cli.js';
import { parseRedisTarget } from './redis-target.js';

describe('--redis', () => {
  it('takes one Redis by URL', () => {
    expect(parseRedisTarget('redis://127.0.0.1:6379/0')).toEqual({
      ok: true,
      value: { kind: 'single', url: 'redis://127.0.0.1:6379/0' },
    });
    expect(parseRedisTarget('rediss://user:pw@redis.internal:6380').ok).toBe(true);
  });

  it('takes Sentinels and the master they name, with the data nodes’ credentials', () => {
    expect(parseRedisTarget('redis+sentinel://app:p%40ss@10.0.0.1:26379,sentinel-b,[fd00::3]:26380/tether')).toEqual({
      ok: true,
      value: {
        kind: 'sentinel',
        name: 'tether',
        sentinels: [
          { host: '10.0.0.1', port: 26379 },
          { host: 'sentinel-b', port: 26379 },
          { host: 'fd00::3', port: 26380 },
        ],
        username: 'app',
        password: 'p@ss',
      },
    });
    expect(parseRedisTarget('redis+sentinel://:secret@s1/m')).toMatchObject({
      ok: true,
      value: { password: 'secret' },
    });
  });

  it('refuses anything else with a message that says what it takes', () => {
    for (const bad of [
      'http://x',
      'redis://',
      'redis+sentinel://127.0.0.1:26379',
      'redis+sentinel://127.0.0.1:26379/',
      'redis+sentinel://127.0.0.1:99999/m',
      'redis+sentinel://a b:1/m',
      'redis+sentinel://,/m',
      'redis+sentinel://u:%zz@s1/m',
      'redis+cluster://127.0.0.1:7000',
      `redis+sentinel://${Array.from({ length: 17 }, (_, i) => `s${i}`).join(',')}/m`,
    ]) {
      const r = parseRedisTarget(bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.error.code, bad).toBe('bad-request');
    }
    const r = parseRedisTarget('redis+cluster://127.0.0.1:7000');
    expect(!r.ok && r.error.message).toContain('redis+sentinel://');
  });

  it('never prints a Sentinel password', () => {
    expect(redactUrl('redis+sentinel://app:s3cret@10.0.0.1:26379,10.0.0.2:26379/tether')).not.toContain('s3cret');
  });
});
