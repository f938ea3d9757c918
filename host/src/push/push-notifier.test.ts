import type { Approval, NotifyLevel, PushPayload, SessionEvent } from '@tether/shared-protocol';
import { decodePushPayload, utf8Decode } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { PushCounters } from './push-counters.js';
import { openDatabase } from '../store/database.js';
import { DeviceStore } from '../store/device-store.js';
import { ForegroundTracker } from './foreground.js';
import { DEFAULT_DENY_ONLY_PATTERNS } from './push-config.js';
import { PushDelivery } from './push-delivery.js';
import { PushNotifier } from './push-notifier.js';
import type { PushMessage, SendOutcome } from './push-sender.js';
import { PushStore } from './push-store.js';
import { APP_VISIBILITY_TTL_MS } from '@tether/shared-protocol';

const HOST_ID = 'h'.repeat(22);
const KEY = 'B'.padEnd(87, 'A');

function setUp(options: { approvePartial?: boolean } = {}) {
  const clock = new ManualClock();
  const db = openDatabase(':memory:');
  const devices = new DeviceStore(db);
  const store = new PushStore(db);
  const counters = new PushCounters();
  const sent: PushMessage[] = [];
  const sender = {
    send: (m: PushMessage) => (sent.push(m), Promise.resolve<SendOutcome>({ kind: 'delivered', status: 201 })),
  };
  const delivery = new PushDelivery({ sender, clock, counters, onGone: () => undefined });
  const foreground = new ForegroundTracker();
  const levels = new Map<string, NotifyLevel>();
  const notifier = new PushNotifier({
    hostId: HOST_ID,
    hostName: 'studio',
    store,
    deviceScopes: (id) => {
      const d = devices.get(id);
      return d && !d.revoked ? d.scopes : undefined;
    },
    sessionTitle: () => 'Fix the build',
    sessionNotify: (id) => levels.get(id),
    foreground,
    delivery,
    policy: { denyOnly: DEFAULT_DENY_ONLY_PATTERNS, approvePartial: options.approvePartial ?? false },
    counters,
    clock,
  });
  let n = 0;
  const device = (
    scopes: ('watch' | 'approve')[],
    preferences = { approvals: true, runFinished: false, runFailed: false },
    declarativeUrl?: string,
  ) => {
    n++;
    const id = `device${n}`.padEnd(22, 'x');
    devices.insert({ id, publicKey: new Uint8Array(32).fill(n), label: `Phone ${n}`, scopes, createdAt: n });
    store.put({
      endpoint: `https://push.example/${n}`,
      deviceId: id,
      p256dh: KEY,
      auth: 'a'.repeat(22),
      createdAt: n,
      preferences,
      ...(declarativeUrl !== undefined ? { declarativeUrl } : {}),
    });
    return id;
  };
  const payloads = async () => {
    await delivery.idle();
    return sent.map((m) => ({
      endpoint: m.subscription.endpoint,
      payload: decodePushPayload(utf8Decode(m.payload)!)!,
      m,
    }));
  };
  /** What was sent to `endpoint`, as JSON. */
  const bodies = async (endpoint: string) => {
    await delivery.idle();
    return sent
      .filter((m) => m.subscription.endpoint === endpoint)
      .map((m) => JSON.parse(utf8Decode(m.payload)!) as unknown);
  };
  return { clock, devices, store, counters, sent, delivery, foreground, notifier, device, payloads, bodies, levels };
}

let seq = 0;
function approval(action: string, status: Approval['status'] = 'pending', extra: Partial<Approval> = {}): Approval {
  return {
    id: 'a_approval1',
    sessionId: 's_session1',
    toolCallId: 't1',
    tool: 'shell',
    kind: 'shell',
    action,
    cwd: '/p',
    place: 'local',
    createdAt: 1,
    status,
    ...extra,
  };
}

function event(body: Record<string, unknown> & { type: string }): SessionEvent {
  return { sessionId: 's_session1', seq: ++seq, at: 1, ...body } as SessionEvent;
}

describe('push notifier', () => {
  it('follows the session: needs (the default) tells of approvals, done also of finished runs, off of nothing', async () => {
    const s = setUp();
    s.device(['watch', 'approve']);
    const finished = () => s.notifier.onEvent(event({ type: 'run.finished', status: 'done' }));
    const asks = () => s.notifier.onEvent(event({ type: 'approval.requested', approval: approval('npm test') }));
    const waits = () =>
      s.notifier.onEvent(event({ type: 'session.waiting', reason: 'question', text: 'Go on? [y/N]' }));

    asks();
    finished();
    expect((await s.payloads()).map((p) => p.payload.type)).toEqual(['approval']);

    s.levels.set('s_session1', 'done');
    finished();
    expect((await s.payloads()).map((p) => p.payload.type)).toEqual(['approval', 'run']);

    s.levels.set('s_session1', 'off');
    asks();
    waits();
    finished();
    s.notifier.onEvent(event({ type: 'run.finished', status: 'error', error: 'boom' }));
    expect((await s.payloads()).map((p) => p.payload.type)).toEqual(['approval', 'run']);
    expect(s.counters.snapshot()['push:skipped:session-off']).toBe(4);
  });

  it('masks what looks secret on the lock screen and offers no Approve there', async () => {
    const s = setUp();
    s.device(['watch', 'approve']);
    const action = 'curl -H "Authorization: Bearer sk-live-51HxYz0123456789" https://api.example.com/charge';
    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval(action) }));
    const [sent] = await s.payloads();
    const payload = sent!.payload as Extract<PushPayload, { type: 'approval' }>;
    expect(payload.summary).toBe('curl -H "Authorization: Bearer •••" https://api.example.com/charge');
    expect(JSON.stringify(payload)).not.toContain('sk-live');
    expect(payload.lockScreen).toBe('deny-only');
  });

  it('sends a device that takes Declarative Web Push that form, made from the same masked payload', async () => {
    const s = setUp();
    s.device(['watch', 'approve']);
    s.device(['watch', 'approve'], undefined, 'https://studio.example.ts.net/app/');
    const action = 'curl -u deploy:Sup3rS3cret https://api.example.com';
    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval(action) }));
    const [worker] = await s.bodies('https://push.example/1');
    const [declarative] = await s.bodies('https://push.example/2');
    expect(declarative).toEqual({
      web_push: 8030,
      notification: {
        title: 'Run a command on studio?',
        body: 'curl -u deploy:••• https://api.example.com\nFix the build · studio\nTap to see it whole and answer.',
        navigate: `https://studio.example.ts.net/app/#/h/${HOST_ID}/a/a_approval1`,
        tag: 'a_approval1',
        silent: false,
        data: worker,
      },
    });
    expect(JSON.stringify(declarative)).not.toContain('Sup3rS3cret');
    expect(worker).toMatchObject({ type: 'approval', lockScreen: 'deny-only' });

    // Its answer replaces it there too, and a tap still opens the card (which says it was answered).
    s.notifier.onEvent(
      event({
        type: 'approval.resolved',
        approval: approval(action, 'denied', { answeredBy: { kind: 'local', label: 'this computer' } }),
      }),
    );
    const [, resolved] = await s.bodies('https://push.example/2');
    expect(resolved).toMatchObject({
      web_push: 8030,
      notification: {
        title: 'Answered on studio',
        body: 'Denied by this computer.',
        navigate: `https://studio.example.ts.net/app/#/h/${HOST_ID}/a/a_approval1`,
        tag: 'a_approval1',
        silent: true,
      },
    });

    s.notifier.onEvent(event({ type: 'session.waiting', reason: 'question', text: 'Go on? [y/N]' }));
    const [, , waiting] = await s.bodies('https://push.example/2');
    expect(waiting).toMatchObject({
      notification: {
        title: 'Waiting for you: Fix the build',
        navigate: `https://studio.example.ts.net/app/#/h/${HOST_ID}/s/s_session1`,
      },
    });
  });

  it('sends an approval to every subscribed device that may answer it, and to no other', async () => {
    const s = setUp();
    s.device(['watch', 'approve']);
    s.device(['watch']); // may not answer: not told
    s.device(['watch', 'approve'], { approvals: false, runFinished: true, runFailed: true }); // asked not to be
    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval('npm test') }));
    const sent = await s.payloads();
    expect(sent.map((p) => p.endpoint)).toEqual(['https://push.example/1']);
    expect(sent[0]!.payload).toEqual({
      v: 1,
      type: 'approval',
      hostId: HOST_ID,
      approvalId: 'a_approval1',
      sessionId: 's_session1',
      title: 'Fix the build',
      summary: 'npm test',
      kind: 'shell',
      tool: 'shell',
      place: 'local',
      lockScreen: 'approve',
    } satisfies PushPayload);
    expect(sent[0]!.m).toMatchObject({ ttlSeconds: 120, urgency: 'high', topic: 'a_approval1' });
  });

  it('offers only Deny for what the policy names, and for what the notification cannot show whole', async () => {
    const cases: [string, string][] = [
      ['sudo rm /etc/hosts', 'deny-only'],
      ['git   push origin main --force', 'deny-only'],
      ['npm test\nrm -rf ~', 'deny-only'],
      ['echo ' + 'x'.repeat(400), 'deny-only'],
      ['ls -la', 'approve'],
    ];
    for (const [action, expected] of cases) {
      const s = setUp();
      s.device(['watch', 'approve']);
      s.notifier.onEvent(event({ type: 'approval.requested', approval: approval(action) }));
      const [sent] = await s.payloads();
      expect([action, sent!.payload.type === 'approval' && sent!.payload.lockScreen]).toEqual([action, expected]);
    }
    const partial = setUp({ approvePartial: true });
    partial.device(['watch', 'approve']);
    partial.notifier.onEvent(event({ type: 'approval.requested', approval: approval('npm test\nnpm run lint') }));
    const [sent] = await partial.payloads();
    expect(sent!.payload).toMatchObject({ lockScreen: 'approve', summary: 'npm test (+1 more line)' });
  });

  it('offers only Deny for a folder-trust question on the lock screen, however short and whatever the policy', async () => {
    const s = setUp({ approvePartial: true });
    s.device(['watch', 'approve']);
    const trust = approval('.mcp.json: server repo: node server.mjs', 'pending', {
      kind: 'trust',
      tool: 'folder-trust',
    });
    s.notifier.onEvent(event({ type: 'approval.requested', approval: trust }));
    const [sent] = await s.payloads();
    expect(sent!.payload).toMatchObject({ kind: 'trust', lockScreen: 'deny-only' });
  });

  it('skips a session some device shows in front, for as long as its report holds and its connection lives', async () => {
    const s = setUp();
    s.device(['watch', 'approve']);
    const looking = s.device(['watch', 'approve'], { approvals: false, runFinished: false, runFailed: false });
    const connection = { isClosed: false };
    s.foreground.report(connection, looking, true, 's_session1', s.clock.now());
    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval('ls') }));
    expect(await s.payloads()).toEqual([]);
    expect(s.counters.get('push:skipped:in-front')).toBe(1);

    s.clock.advance(APP_VISIBILITY_TTL_MS + 1); // the phone locked without saying so
    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval('ls') }));
    expect(await s.payloads()).toHaveLength(1);

    s.foreground.report(connection, looking, true, 's_session1', s.clock.now());
    connection.isClosed = true;
    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval('ls') }));
    expect(await s.payloads()).toHaveLength(2);
  });

  it('tells the others, not the device that answered, when an approval is resolved', async () => {
    const s = setUp();
    const answering = s.device(['watch', 'approve']);
    s.device(['watch', 'approve']);
    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval('ls') }));
    await s.payloads();
    s.notifier.onEvent(
      event({
        type: 'approval.resolved',
        approval: approval('ls', 'denied', {
          decision: 'deny',
          answeredBy: { kind: 'device', id: answering, label: 'Phone 1' },
        }),
      }),
    );
    const sent = (await s.payloads()).slice(2);
    expect(sent.map((p) => [p.endpoint, p.payload.type, p.m.topic])).toEqual([
      ['https://push.example/2', 'resolved', 'a_approval1'],
    ]);
    expect(sent[0]!.payload).toMatchObject({ status: 'denied', by: 'Phone 1' });
  });

  it('tells the device that answered too when its browser shows the notifications itself', async () => {
    const s = setUp();
    const answering = s.device(['watch', 'approve'], undefined, 'https://studio.example/');
    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval('ls') }));
    await s.bodies('https://push.example/1');
    const by = { kind: 'device' as const, id: answering, label: 'Phone 1' };
    s.notifier.onEvent(event({ type: 'approval.resolved', approval: approval('ls', 'allowed', { answeredBy: by }) }));
    const [, resolved] = await s.bodies('https://push.example/1');
    expect(resolved).toMatchObject({ notification: { title: 'Answered on studio', body: 'Approved by Phone 1.' } });
  });

  it('tells of a run that ended only those who asked', async () => {
    const s = setUp();
    s.device(['watch', 'approve']);
    s.device(['watch'], { approvals: true, runFinished: true, runFailed: false });
    s.device(['watch'], { approvals: true, runFinished: false, runFailed: true });
    const run = (status: string, error?: string) =>
      s.notifier.onEvent(
        event({
          type: 'run.finished',
          runId: 'r',
          status,
          usage: { inputTokens: 0, outputTokens: 0 },
          ...(error ? { error } : {}),
        }),
      );
    run('done');
    run('error', 'the model API failed\nwith details');
    run('interrupted');
    const sent = await s.payloads();
    expect(sent.map((p) => [p.endpoint, p.payload.type === 'run' && p.payload.status])).toEqual([
      ['https://push.example/2', 'done'],
      ['https://push.example/3', 'error'],
    ]);
    expect(sent[1]!.payload).toMatchObject({ text: 'the model API failed (+1 more line)' });
  });

  it('tells those who hear of approvals that a session waits, unless it is in front', async () => {
    const s = setUp();
    s.device(['watch']);
    s.device(['watch'], { approvals: false, runFinished: true, runFailed: true });
    const looking = s.device(['watch', 'approve'], { approvals: false, runFinished: false, runFailed: false });
    s.notifier.onEvent(event({ type: 'session.waiting', reason: 'question', text: 'Do you want to proceed?\x1b[2J' }));
    s.foreground.report({ isClosed: false }, looking, true, 's_session1', s.clock.now());
    s.notifier.onEvent(event({ type: 'session.waiting', reason: 'limit', text: 'Stopped after 100 model calls' }));
    const sent = await s.payloads();
    expect(sent.map((p) => p.endpoint)).toEqual(['https://push.example/1']);
    expect(sent[0]!.payload).toMatchObject({ type: 'waiting', reason: 'question', title: 'Fix the build' });
    // What the program printed is hostile: its escape is shown, not sent as a control character.
    expect(sent[0]!.payload.type === 'waiting' && sent[0]!.payload.text).not.toContain('\x1b');
    expect(s.counters.get('push:skipped:in-front')).toBe(1);
  });

  it('is silenced only by a device that may answer: one with only watch stops no push for the others', async () => {
    const s = setUp();
    const answering = s.device(['watch', 'approve']);
    const watching = s.device(['watch'], { approvals: true, runFinished: true, runFailed: true });
    const other = s.device(['watch'], { approvals: true, runFinished: true, runFailed: true });
    const connection = { isClosed: false };
    s.foreground.report(connection, watching, true, 's_session1', s.clock.now());

    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval('rm -rf build') }));
    s.notifier.onEvent(event({ type: 'session.waiting', reason: 'question', text: 'Proceed?' }));
    s.notifier.onEvent(
      event({ type: 'run.finished', runId: 'r', status: 'done', usage: { inputTokens: 0, outputTokens: 0 } }),
    );
    const endpoint = (id: string) => s.store.forDevice(id)[0]!.endpoint;
    // Everyone is told as if nobody looked, but the device looking, which need not be told what it shows.
    expect((await s.payloads()).map((p) => [p.endpoint, p.payload.type])).toEqual([
      [endpoint(answering), 'approval'],
      [endpoint(answering), 'waiting'],
      [endpoint(other), 'waiting'],
      [endpoint(other), 'run'],
    ]);
    expect(s.counters.get('push:skipped:in-front')).toBe(0);

    // A device that may answer has it in front: nothing goes out for that session.
    s.foreground.report({ isClosed: false }, answering, true, 's_session1', s.clock.now());
    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval('rm -rf dist') }));
    s.notifier.onEvent(event({ type: 'session.waiting', reason: 'question', text: 'Proceed?' }));
    expect(await s.payloads()).toHaveLength(4);
    expect(s.counters.get('push:skipped:in-front')).toBe(2);
  });

  it('counts a report only while its device may answer: a revoked one silences nothing', async () => {
    const s = setUp();
    s.device(['watch', 'approve']);
    const looking = s.device(['watch', 'approve'], { approvals: false, runFinished: false, runFailed: false });
    s.foreground.report({ isClosed: false }, looking, true, 's_session1', s.clock.now());
    s.devices.revoke(looking, s.clock.now());
    s.notifier.onEvent(event({ type: 'approval.requested', approval: approval('ls') }));
    expect(await s.payloads()).toHaveLength(1);
  });
});
