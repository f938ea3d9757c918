import type { ProtocolError, SessionEvent } from '@tether/shared-protocol';
import { MAX_WATCHED_SESSIONS, isSessionEvent } from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { idleSession } from '../../test/support/idle-session.js';
import { connectDevice, pairDevice, until, waitForState } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('a device following many sessions', () => {
  it('holds every watch it may have, as it connects and after a drop: none is refused as busy', async () => {
    t = await startTestHost({ remote: LOCAL_REMOTE });
    // More than the host answers at once on one connection (32), as many as a device may follow.
    const ids: string[] = [];
    for (let i = 0; i < MAX_WATCHED_SESSIONS; i++) ids.push(await idleSession(t, `session ${i}`));
    const device = await pairDevice(t);
    const { client, events, sockets } = connectDevice(t, device);
    const refused: string[] = [];
    client.onWatchError((id: string, error: ProtocolError) => refused.push(`${id}: ${error.code}`));
    for (const id of ids) expect(client.watch(id, 0).ok).toBe(true);
    await waitForState(client, 'open');

    const heard = (text: string) => {
      const seen = new Set(
        events
          .filter((e): e is SessionEvent => isSessionEvent(e) && e.type === 'notice' && e.text === text)
          .map((e) => e.sessionId),
      );
      return ids.every((id) => seen.has(id)) ? true : undefined;
    };
    for (const id of ids) t.host.parts.log.append(id, { type: 'notice', level: 'info', text: 'first' });
    await until(() => heard('first'), 10_000, 'every session heard');
    expect(refused).toEqual([]);

    // Dropped: every watch is asked for again at once when it reconnects.
    sockets.at(-1)!.terminate();
    await waitForState(client, 'connecting');
    await waitForState(client, 'open');
    for (const id of ids) t.host.parts.log.append(id, { type: 'notice', level: 'info', text: 'second' });
    await until(() => heard('second'), 10_000, 'every session heard after the drop');
    expect(refused).toEqual([]);
    client.stop();
  });
});
