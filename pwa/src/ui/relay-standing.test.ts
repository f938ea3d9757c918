import { describe, expect, it } from 'vitest';
import { relayLine } from './relay-standing.js';

describe('a relay on the host’s row', () => {
  it('says which relay is in use, which refused the computer and when it is asked again', () => {
    const now = 1_700_000_000_000;
    expect(
      relayLine({ url: 'https://a.example', state: 'linked', message: 'phones reach it here', since: now }, now),
    ).toEqual({ where: 'https://a.example', label: 'in use', chip: 'connected', why: 'phones reach it here.' });
    const held = relayLine(
      {
        url: 'https://b.example',
        state: 'held',
        message: 'the relay names itself https://x, not https://b.example',
        since: now,
        retryAt: now + 90_000,
      },
      now,
    );
    expect(held).toMatchObject({ label: 'refused this computer', chip: 'error' });
    expect(held.why).toBe(
      'the relay names itself https://x, not https://b.example. Asked again in 90 s, or sooner if no other relay answers.',
    );
  });

  it('shows what the computer says as text, hidden characters made visible', () => {
    const line = relayLine({ url: 'https://a.example\u202e', state: 'failed', message: 'down\u001b[2J', since: 0 }, 0);
    expect(line.where).not.toContain('\u202e');
    expect(line.why).not.toContain('\u001b');
  });
});
