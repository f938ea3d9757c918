import { mkdtempSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_NOTIFICATIONS_CONFIG, allowedEndpoint, loadNotificationsConfig } from './push-config.js';
import { loadOrCreateVapidKeys } from './vapid-keys.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const temp = () => (dir = mkdtempSync(join(tmpdir(), 'tether-push-config-')));

describe('notifications.json', () => {
  it('gives the defaults when absent, and names the file and the field when wrong', () => {
    const d = temp();
    expect(loadNotificationsConfig(join(d, 'notifications.json'))).toEqual({
      ok: true,
      value: DEFAULT_NOTIFICATIONS_CONFIG,
    });
    writeFileSync(join(d, 'bad.json'), JSON.stringify({ lockScreen: { denyOnly: 'sudo' } }));
    const bad = loadNotificationsConfig(join(d, 'bad.json'));
    expect(bad.ok ? '' : bad.error.message).toMatch(/bad\.json: lockScreen\.denyOnly/);
    writeFileSync(join(d, 'localhost.json'), JSON.stringify({ contact: 'me@example.com' }));
    expect(loadNotificationsConfig(join(d, 'localhost.json')).ok).toBe(false);
    writeFileSync(
      join(d, 'good.json'),
      JSON.stringify({
        lockScreen: { alsoDenyOnly: ['terraform apply'] },
        contact: 'mailto:me@example.org',
        pushServices: ['https://push.example.net:8443/x'],
      }),
    );
    const good = loadNotificationsConfig(join(d, 'good.json'));
    if (!good.ok) throw new Error(good.error.message);
    expect(good.value.denyOnly).toContain('terraform apply');
    expect(good.value.denyOnly).toContain('sudo ');
    expect(good.value.contact).toBe('mailto:me@example.org');
    expect(good.value.extraPushOrigins).toEqual(['https://push.example.net:8443']);
  });

  it('allows endpoints only on the known push services or configured origins', () => {
    expect(allowedEndpoint('https://fcm.googleapis.com/fcm/send/abc', [])).toBe(true);
    expect(allowedEndpoint('https://web.push.apple.com/QF…', [])).toBe(true);
    expect(allowedEndpoint('https://wns2-bl2p.notify.windows.com/w/?token=x', [])).toBe(true);
    expect(allowedEndpoint('https://updates.push.services.mozilla.com/wpush/v2/x', [])).toBe(true);
    expect(allowedEndpoint('https://fcm.googleapis.com.evil.example/x', [])).toBe(false);
    expect(allowedEndpoint('https://fcm.googleapis.com:8443/x', [])).toBe(false);
    expect(allowedEndpoint('https://user@fcm.googleapis.com/x', [])).toBe(false);
    expect(allowedEndpoint('http://fcm.googleapis.com/x', [])).toBe(false);
    expect(allowedEndpoint('https://192.168.1.1/admin', [])).toBe(false);
    expect(allowedEndpoint('https://127.0.0.1:9443/push/1', ['https://127.0.0.1:9443'])).toBe(true);
  });
});

describe('VAPID keys', () => {
  it('are made once, owner-only, and a readable file is refused', () => {
    const d = temp();
    const path = join(d, 'vapid-key.json');
    const made = loadOrCreateVapidKeys(path);
    if (!made.ok) throw new Error(made.error.message);
    expect(made.value.created).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = loadOrCreateVapidKeys(path);
    expect(again.ok && !again.value.created && again.value.keys.publicKey === made.value.keys.publicKey).toBe(true);
    chmodSync(path, 0o644);
    const open = loadOrCreateVapidKeys(path);
    expect(open.ok ? '' : open.error.message).toMatch(/chmod 600/);
    chmodSync(path, 0o600);
    writeFileSync(path, '{"publicKey":"x","privateKey":"y"}', { mode: 0o600 });
    expect(loadOrCreateVapidKeys(path).ok).toBe(false);
  });
});
