import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { RelayDetailsSchema } from '../pairing-messages.js';
import { HostInfoResult } from '../rpc/host.js';
import { MAX_RELAYS, RelayUrlListSchema, relayUrlsOf } from './relay-list.js';

describe('a host’s list of relays', () => {
  it('is every relay the host named, or the one URL from a host that gave no list', () => {
    expect(relayUrlsOf({ url: 'https://a.example' })).toEqual(['https://a.example']);
    expect(relayUrlsOf({ url: 'https://a.example', urls: ['https://a.example', 'https://b.example'] })).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });

  it('is bounded: empty or longer than MAX_RELAYS does not decode', () => {
    const many = Array.from({ length: MAX_RELAYS + 1 }, (_, i) => `https://r${i}.example`);
    expect(v.safeParse(RelayUrlListSchema, many.slice(0, MAX_RELAYS)).success).toBe(true);
    expect(v.safeParse(RelayUrlListSchema, many).success).toBe(false);
    expect(v.safeParse(RelayUrlListSchema, []).success).toBe(false);
  });

  it('is an additive field: a pairing reply or host.info without it still decodes', () => {
    expect(v.safeParse(RelayDetailsSchema, { url: 'https://a.example', ticket: 't' }).success).toBe(true);
    const withList = v.safeParse(RelayDetailsSchema, {
      url: 'https://a.example',
      ticket: 't',
      urls: ['https://b.example'],
    });
    expect(withList.success && withList.output.urls).toEqual(['https://b.example']);
    const info = {
      hostId: 'h'.repeat(22),
      name: 'n',
      version: '1',
      protocolVersion: 1,
      deviceId: 'd'.repeat(22),
      scopes: [],
      features: [],
      models: [],
      defaultModel: 'demo',
      roots: [],
    };
    expect(v.safeParse(HostInfoResult, info).success).toBe(true);
    expect(v.safeParse(HostInfoResult, { ...info, relays: ['https://a.example', 'https://b.example'] }).success).toBe(
      true,
    );
  });
});
