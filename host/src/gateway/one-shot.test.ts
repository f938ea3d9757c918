import type { Clock } from '@tether/shared-protocol';
import {
  HANDSHAKE_CLOCK_WINDOW_MS,
  ReplayCache,
  decodeChannelMessage,
  encodeChannelMessage,
  generateBoxKeyPair,
  generateDeviceId,
  generateHostIdentity,
  ok,
  openCallReply,
  sealCall,
} from '@tether/shared-protocol';
import { ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../rpc/caller.js';
import type { Dispatch } from '../rpc/dispatch.js';
import type { Db } from '../store/database.js';
import { openDatabase } from '../store/database.js';
import { DeviceStore } from '../store/device-store.js';
import { OneShotHorizon } from './one-shot-horizon.js';
import { answerOneShot } from './one-shot.js';
import { HostCounters } from '../stats/host-counters.js';

/**
 * One-shot calls across a restart of the host, on a manual clock: one database, and for each run
 * of the host a fresh replay cache, start time and horizon read from the store, as `tether start`
 * makes them.
 */
function setUp() {
  const clock = new ManualClock();
  const random = seededRandom('one-shot-restart');
  const db: Db = openDatabase(':memory:');
  const devices = new DeviceStore(db);
  const identity = generateHostIdentity(random);
  const acted: string[] = [];
  const dispatch: Dispatch<Caller> = (method, params) => {
    acted.push(`${method} ${JSON.stringify(params)}`);
    return Promise.resolve(ok({}));
  };
  const device = (name: string) => {
    const keys = generateBoxKeyPair(random);
    const id = generateDeviceId(random);
    devices.insert({ id, publicKey: keys.publicKey, label: name, scopes: ['watch', 'approve'], createdAt: 0 });
    /** A call as this device's service worker makes it, by its own clock. */
    const sealed = (clock: Pick<Clock, 'now'>, decision: string) =>
      sealCall(
        { deviceId: id, deviceKeys: keys, hostBoxPublicKey: identity.box.publicKey, clock, random },
        encodeChannelMessage({ t: 'req', id: 1, method: 'approvals.answer', params: { id: 'a_1', decision } }),
      );
    const message = (clock: Pick<Clock, 'now'>, decision = 'allow-once') => sealed(clock, decision).message;
    return Object.assign(message, { sealed });
  };
  /** Approvals whose notification offered only Deny and Open (the test's `a_1` unless changed). */
  const denyOnly = new Set<string>();
  /** The host starting (again) now. */
  const start = () => {
    const stats = new HostCounters();
    const deps = {
      approvableUnopened: (id: string) => !denyOnly.has(id),
      identity,
      devices,
      clock,
      random,
      replay: new ReplayCache(clock),
      dispatch,
      stats,
      startedAt: clock.now(),
      horizon: new OneShotHorizon(db),
    };
    return {
      stats,
      call: async (message: Uint8Array) => {
        const answered = await answerOneShot(deps, message);
        return answered.ok ? 'ok' : answered.error.code;
      },
      /** The error code inside the sealed reply, or 'ok' for a result. */
      reply: async (call: { message: Uint8Array; replyKey: Uint8Array }) => {
        const answered = await answerOneShot(deps, call.message);
        if (!answered.ok) return `call ${answered.error.code}`;
        const body = openCallReply(answered.value, call.replyKey);
        const reply = body.ok ? decodeChannelMessage(body.value) : undefined;
        if (!reply || reply.t !== 'res') return 'no reply';
        return 'error' in reply ? reply.error.code : 'ok';
      },
    };
  };
  return { clock, db, acted, device, start, denyOnly };
}

describe('one-shot calls across a restart', () => {
  it('refuse a call stamped ahead and taken before the restart, replayed after it; a fresh one passes', async () => {
    const s = setUp();
    const phone = s.device('phone');
    // The phone's clock runs almost a whole window ahead: its call passes the clock check until
    // nearly two windows after it was made, long after the host is back.
    const ahead = { now: () => s.clock.now() + HANDSHAKE_CLOCK_WINDOW_MS - 1_000 };
    const recorded = phone(ahead);
    const before = s.start();
    expect(await before.call(recorded)).toBe('ok');
    expect(await before.call(recorded)).toBe('handshake-replayed');

    s.clock.advance(10_000);
    const after = s.start();
    expect(await after.call(recorded)).toBe('handshake-replayed');
    expect(after.stats.get('call:handshake-replayed')).toBe(1);
    expect(s.acted).toHaveLength(1);

    // The same phone answering anew: its clock is still ahead, its call newer than the last.
    expect(await after.call(phone(ahead, 'deny'))).toBe('ok');
    expect(s.acted).toEqual([
      'approvals.answer {"id":"a_1","decision":"allow-once"}',
      'approvals.answer {"id":"a_1","decision":"deny"}',
    ]);
  });

  it('hold for every run after, and never for another device or a later call the host had not taken', async () => {
    const s = setUp();
    const phone = s.device('phone');
    const tablet = s.device('tablet');
    const ahead = { now: () => s.clock.now() + HANDSHAKE_CLOCK_WINDOW_MS - 1_000 };
    const older = phone(ahead, 'deny');
    s.clock.advance(1);
    const taken = phone(ahead);
    s.clock.advance(1);
    const notSent = phone(ahead, 'deny');
    expect(await s.start().call(taken)).toBe('ok');

    s.clock.advance(5_000);
    s.start(); // a run that took no call from the phone: what the first took still counts
    s.clock.advance(5_000);
    const third = s.start();
    expect(await third.call(taken)).toBe('handshake-replayed');
    // A later call that never reached the host before is no replay: its first arrival is answered.
    expect(await third.call(notSent)).toBe('ok');
    // An earlier one cannot be told from a replay: refused, and the phone makes it again.
    expect(await third.call(older)).toBe('handshake-replayed');
    // Another device, its clock right, is answered at once after the restart.
    expect(await third.call(tablet(s.clock))).toBe('ok');
  });

  it('is refused, and not acted on, when the host cannot keep its timestamp', async () => {
    const s = setUp();
    const phone = s.device('phone');
    const run = s.start();
    s.db.exec("CREATE TRIGGER full_disk BEFORE INSERT ON settings BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    expect(await run.call(phone(s.clock))).toBe('unavailable');
    expect(s.acted).toEqual([]);
  });
});

describe('a one-shot answer', () => {
  it('allows once or denies; for this session or always is refused, whatever sent it', async () => {
    const s = setUp();
    const phone = s.device('phone');
    const run = s.start();
    expect(await run.reply(phone.sealed(s.clock, 'allow-always'))).toBe('forbidden');
    expect(await run.reply(phone.sealed(s.clock, 'allow-session'))).toBe('forbidden');
    expect(await run.reply(phone.sealed(s.clock, 'allow'))).toBe('forbidden');
    expect(s.acted).toEqual([]);
    expect(run.stats.get('call:decision-not-one-shot')).toBe(3);
    expect(await run.reply(phone.sealed(s.clock, 'allow-once'))).toBe('ok');
    expect(await run.reply(phone.sealed(s.clock, 'deny'))).toBe('ok');
    expect(s.acted).toHaveLength(2);
  });

  it('does not approve what its notification offered only Deny and Open for, but denies it', async () => {
    const s = setUp();
    s.denyOnly.add('a_1');
    const phone = s.device('phone');
    const run = s.start();
    expect(await run.reply(phone.sealed(s.clock, 'allow-once'))).toBe('forbidden');
    expect(s.acted).toEqual([]);
    expect(run.stats.get('call:approve-needs-the-app')).toBe(1);
    expect(await run.reply(phone.sealed(s.clock, 'deny'))).toBe('ok');
    expect(s.acted).toHaveLength(1);
  });
});
