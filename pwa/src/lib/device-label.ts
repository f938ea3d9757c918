import { MAX_DEVICE_LABEL } from '@tether/shared-protocol';

/**
 * The label the computer shows when this device asks to pair ("iPhone · Safari"): enough for the
 * person to recognise the request, nothing more identifying than the user agent already says.
 */
export function deviceLabel(userAgent: string, maxTouchPoints = 0): string {
  const label = `${deviceName(userAgent, maxTouchPoints)} · ${browserName(userAgent)}`;
  return label.slice(0, MAX_DEVICE_LABEL);
}

function deviceName(ua: string, maxTouchPoints: number): string {
  if (/iPhone/.test(ua)) return 'iPhone';
  // iPadOS asks for desktop pages by default: it says "Macintosh" but has a touch screen.
  if (/iPad/.test(ua) || (/Macintosh/.test(ua) && maxTouchPoints > 1)) return 'iPad';
  if (/Android/.test(ua)) return /Mobile/.test(ua) ? 'Android phone' : 'Android tablet';
  if (/Macintosh|Mac OS X/.test(ua)) return 'Mac';
  if (/Windows/.test(ua)) return 'Windows';
  if (/CrOS/.test(ua)) return 'Chromebook';
  if (/Linux/.test(ua)) return 'Linux';
  return 'Browser';
}

function browserName(ua: string): string {
  if (/EdgiOS|Edg\//.test(ua)) return 'Edge';
  if (/FxiOS|Firefox\//.test(ua)) return 'Firefox';
  if (/CriOS/.test(ua)) return 'Chrome';
  if (/SamsungBrowser/.test(ua)) return 'Samsung Internet';
  if (/Chromium\//.test(ua)) return 'Chromium';
  if (/Chrome\//.test(ua)) return 'Chrome';
  if (/Safari\//.test(ua)) return 'Safari';
  return 'browser';
}
