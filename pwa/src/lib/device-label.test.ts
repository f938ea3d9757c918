import { describe, expect, it } from 'vitest';
import { deviceLabel } from './device-label.js';

describe('deviceLabel', () => {
  it('names common phones and browsers', () => {
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
    expect(deviceLabel(iphone)).toBe('iPhone · Safari');
    const ipadDesktop =
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
    expect(deviceLabel(ipadDesktop, 5)).toBe('iPad · Safari');
    expect(deviceLabel(ipadDesktop, 0)).toBe('Mac · Safari');
    const pixel =
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
    expect(deviceLabel(pixel)).toBe('Android phone · Chrome');
    expect(deviceLabel('')).toBe('Browser · browser');
  });
});
