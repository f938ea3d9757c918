import { describe, expect, it } from 'vitest';
import { apiBaseFor, pairUrl, sameOrigin, webSocketUrl } from './api-urls.js';

describe('api urls', () => {
  it('derives the endpoints from the link or the page origin', () => {
    expect(apiBaseFor('', 'http://127.0.0.1:7420')).toBe('http://127.0.0.1:7420');
    expect(apiBaseFor('https://laptop.tail.ts.net:7420/', 'http://x')).toBe('https://laptop.tail.ts.net:7420');
    expect(pairUrl('http://127.0.0.1:7420')).toBe('http://127.0.0.1:7420/rc/pair');
    expect(webSocketUrl('http://127.0.0.1:7420')).toBe('ws://127.0.0.1:7420/rc/ws');
    expect(webSocketUrl('https://h.ts.net:7420')).toBe('wss://h.ts.net:7420/rc/ws');
    expect(sameOrigin('http://127.0.0.1:7420', 'http://127.0.0.1:7420')).toBe(true);
    expect(sameOrigin('http://127.0.0.1:7421', 'http://127.0.0.1:7420')).toBe(false);
  });
});
