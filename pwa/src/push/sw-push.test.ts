import {
  ReplayCache,
  decodeChannelMessage,
  encodeChannelMessage,
  openCall,
  sealCallReply,
  secureRandom,
  systemClock,
} from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import type { HostRecord } from '../data/records.js';
import { answerByOneShot, callTargets } from './one-shot-answer.js';
import type { AppWindow } from './sw-push.js';
import { OPEN_MESSAGE } from './sw-push.js';
import { HOST_ID, approvalPush, device, host, record, world } from './sw-test-world.js';

describe('the service worker with a push', () => {
  it('folds finished runs into one notification, newest first, each session once; a failure stays apart', async () => {
    const w = world();
    const finished = (sessionId: string, title: string, status: 'done' | 'error' = 'done') =>
      w.push.onPush(
        JSON.stringify({
          v: 1,
          type: 'run',
          hostId: HOST_ID,
          sessionId,
          title,
          status,
          text: status === 'error' ? 'boom' : '',
        }),
      );
    await finished('s_1', 'Fix the build');
    expect(w.shown.at(-1)).toMatchObject({
      title: 'Finished: Fix the build',
      options: { tag: 'runs:finished', data: { open: `#/h/${HOST_ID}/s/s_1` } },
    });
    await finished('s_2', 'Write the docs');
    await finished('s_1', 'Fix the build');
    await finished('s_3', 'Bump the deps', 'error');
    await finished('s_4', 'Tidy up');
    const last = w.shown.filter((s) => s.options.tag === 'runs:finished').at(-1)!;
    expect(last.title).toBe('3 runs finished');
    expect(last.options.body).toBe('Tidy up\nFix the build\nWrite the docs\nOn studio⟨U+202E⟩.');
    expect(last.options.data.open).toBe(`#/h/${HOST_ID}`);
    expect(w.shown.filter((s) => s.options.tag === 'run:s_3').map((s) => s.title)).toEqual(['Failed: Bump the deps']);
  });

  it('shows an approval with Approve and Deny, tagged with its id, kept until answered', async () => {
    const w = world();
    await w.push.onPush(JSON.stringify(approvalPush()));
    const [spec] = w.shown;
    expect(spec!.title).toBe('Run a command on studio⟨U+202E⟩?');
    expect(spec!.options.body).toBe('rm -rf build && make\nFix the build · studio⟨U+202E⟩');
    expect(spec!.options.actions?.map((a) => a.title)).toEqual(['Approve', 'Deny']);
    expect(spec!.options).toMatchObject({
      tag: 'a_1',
      requireInteraction: true,
      data: { open: `#/h/${HOST_ID}/a/a_1` },
    });
  });

  it('names the machine an action runs on in the title the lock screen shows', async () => {
    const w = world({ actions: false });
    await w.push.onPush(JSON.stringify({ ...approvalPush(), place: 'build-box' }));
    expect(w.shown[0]!.title).toBe('Run a command on build-box (via studio⟨U+202E⟩)?');
    expect(w.shown[0]!.options.body).toContain('Fix the build · build-box (via studio⟨U+202E⟩)');
  });

  it('offers Deny and Open only for what the lock-screen policy forbids, and no buttons where there are none', async () => {
    const w = world();
    await w.push.onPush(JSON.stringify(approvalPush('deny-only')));
    expect(w.shown[0]!.options.actions?.map((a) => a.action)).toEqual(['deny', 'open']);
    // A forged Approve on it (no such button) is not answered: the app opens instead.
    await w.click('approve');
    expect(w.answers).toEqual([]);
    const ios = world({ actions: false });
    await ios.push.onPush(JSON.stringify(approvalPush()));
    expect(ios.shown[0]!.options.actions).toBeUndefined();
    expect(ios.shown[0]!.options.body).toMatch(/Tap to see it whole/);
  });

  it('always shows something, even for a push it cannot read or a computer it does not know', async () => {
    const w = world();
    await w.push.onPush('not json');
    await w.push.onPush(undefined);
    await w.push.onPush(JSON.stringify({ ...approvalPush(), hostId: 'X'.repeat(22) }));
    expect(w.shown.map((s) => s.options.tag)).toEqual(['tether:unknown', 'tether:unknown', 'tether:unknown']);
  });

  it('answers from an action and puts the outcome in the notification’s place', async () => {
    const w = world();
    await w.push.onPush(JSON.stringify(approvalPush()));
    await w.click('approve');
    expect(w.answers).toEqual([['a_1', 'allow-once']]);
    expect(w.shown[1]).toMatchObject({ title: 'Approved', options: { tag: 'a_1', silent: true } });

    const again = world({ answer: { kind: 'already-answered', message: 'approval a_1 was already denied by iPad' } });
    await again.push.onPush(JSON.stringify(approvalPush()));
    await again.click('deny');
    expect(again.answers).toEqual([['a_1', 'deny']]);
    expect(again.shown[1]!.title).toBe('Already answered on another device');

    const failed = world({ answer: { kind: 'failed', message: 'The computer could not be reached.' } });
    await failed.push.onPush(JSON.stringify(approvalPush()));
    await failed.click('approve');
    expect(failed.shown[1]!.options.body).toMatch(/Open to retry/);
  });

  it('closes an approval answered elsewhere, but not one being answered from its notification', async () => {
    let release = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    const w = world({ answer: { kind: 'denied' }, hold });
    await w.push.onPush(JSON.stringify(approvalPush()));
    await w.push.onPush(JSON.stringify({ ...approvalPush(), approvalId: 'a_2' }));
    // Deny on a_1 is on its way; the app learns that neither a_1 nor a_2 is pending any more.
    const clicked = w.push.onClick({ tag: 'a_1', data: w.shown[0]!.options.data, close: () => undefined }, 'deny');
    await w.push.closeResolved(HOST_ID, new Set());
    expect(w.closed).toEqual(['a_2']);
    release();
    await clicked;
    expect(w.shown[2]).toMatchObject({ title: 'Denied', options: { tag: 'a_1' } });
    // The outcome is not a question: a later close leaves it.
    await w.push.closeResolved(HOST_ID, new Set(['a_2']));
    expect(w.closed).toEqual(['a_2']);
    // Another host's pending list closes nothing of this one.
    await w.push.onPush(JSON.stringify({ ...approvalPush(), approvalId: 'a_3' }));
    await w.push.closeResolved('another-host', new Set());
    expect(w.closed).toEqual(['a_2']);
  });

  it('opens the app on the approval’s card for a tap: in a window already open, else a new one', async () => {
    const messages: unknown[] = [];
    const window: AppWindow = {
      visibilityState: 'hidden',
      focus: () => Promise.resolve(),
      postMessage: (m) => messages.push(m),
    };
    const w = world({ windows: [window] });
    await w.push.onPush(JSON.stringify(approvalPush()));
    await w.click('');
    expect(messages).toEqual([{ type: OPEN_MESSAGE, hash: `#/h/${HOST_ID}/a/a_1` }]);
    expect(w.closed).toEqual(['a_1']);
    const none = world();
    await none.push.onPush(JSON.stringify(approvalPush()));
    await none.click('');
    expect(none.opened).toEqual([`https://studio.example.ts.net:8443/#/h/${HOST_ID}/a/a_1`]);
  });

  it('replaces a notification answered elsewhere, and shows nothing new while the app is in front', async () => {
    const w = world();
    await w.push.onPush(JSON.stringify(approvalPush()));
    await w.push.onPush(
      JSON.stringify({
        v: 1,
        type: 'resolved',
        hostId: HOST_ID,
        approvalId: 'a_1',
        sessionId: 's_1',
        status: 'allowed',
        by: 'iPad',
      }),
    );
    expect(w.shown[1]).toMatchObject({
      title: 'Answered on studio⟨U+202E⟩',
      options: { tag: 'a_1', body: 'Approved by iPad.' },
    });
    const front: AppWindow = {
      visibilityState: 'visible',
      focus: () => Promise.resolve(),
      postMessage: () => undefined,
    };
    const inFront = world({ windows: [front] });
    await inFront.push.onPush(
      JSON.stringify({
        v: 1,
        type: 'resolved',
        hostId: HOST_ID,
        approvalId: 'a_9',
        sessionId: 's_1',
        status: 'denied',
        by: '',
      }),
    );
    expect(inFront.shown).toEqual([]);
  });

  it('shows a session waiting for the person, and a tap opens that session', async () => {
    const w = world();
    await w.push.onPush(
      JSON.stringify({
        v: 1,
        type: 'waiting',
        hostId: HOST_ID,
        sessionId: 's_2',
        title: 'claude',
        reason: 'question',
        text: 'Do you want to proceed? ❯ 1. Yes',
      }),
    );
    expect(w.shown[0]).toMatchObject({
      title: 'Waiting for you: claude',
      options: { tag: 'wait:s_2', body: 'Do you want to proceed? ❯ 1. Yes\nOn studio⟨U+202E⟩. Tap to open it.' },
    });
    expect(w.shown[0]!.options.actions).toBeUndefined();
    await w.click('');
    expect(w.opened).toEqual([`https://studio.example.ts.net:8443/#/h/${HOST_ID}/s/s_2`]);
  });
});

/** A host's side of one-shot calls, in memory: opens the call, answers as `respond` says. */
function hostFetch(respond: (params: unknown) => unknown, failFirst = false) {
  const replay = new ReplayCache(systemClock);
  const urls: string[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    urls.push(input instanceof Request ? input.url : input.toString());
    if (failFirst && urls.length === 1) throw new TypeError('network');
    const body = new Uint8Array(await new Response(init!.body).arrayBuffer());
    const opened = openCall(body, { hostKeys: host, lookupDevice: () => device.publicKey, clock: systemClock, replay });
    if (!opened.ok) return new Response(null, { status: 401 });
    const request = decodeChannelMessage(opened.value.body);
    if (request?.t !== 'req') return new Response(null, { status: 400 });
    const reply = respond(request.params);
    const message = encodeChannelMessage({ t: 'res', id: request.id, ...(reply as { result: unknown }) });
    return new Response(new Uint8Array(sealCallReply(opened.value.replyKey, message, secureRandom)), { status: 200 });
  };
  return { fetch: fetchImpl, urls };
}

const approval = (status: string) => ({
  approval: {
    id: 'a_1', sessionId: 's_1', toolCallId: 't', tool: 'shell', kind: 'shell', action: 'ls', cwd: '/', place: 'local',
    createdAt: 1, status,
  },
}); // prettier-ignore

describe('the one-shot answer', () => {
  const deps = (fetchImpl: typeof fetch) => ({
    fetch: fetchImpl,
    subtle: undefined,
    clock: systemClock,
    random: secureRandom,
    origin: 'https://studio.example.ts.net:8443',
  });

  it('seals approvals.answer with the stored device key and reads the sealed reply', async () => {
    const seen: unknown[] = [];
    const h = hostFetch((params) => (seen.push(params), { result: approval('allowed') }));
    expect(await answerByOneShot(record, 'a_1', 'allow-once', deps(h.fetch))).toEqual({ kind: 'approved' });
    expect(seen).toEqual([{ id: 'a_1', decision: 'allow-once' }]);
    expect(h.urls).toEqual(['https://studio.example.ts.net:8443/rc/call']);
  });

  it('says when another device answered first', async () => {
    const h = hostFetch(() => ({
      error: { code: 'already-resolved', message: 'approval a_1 was already allowed by iPad' },
    }));
    expect(await answerByOneShot(record, 'a_1', 'deny', deps(h.fetch))).toEqual({
      kind: 'already-answered',
      message: 'approval a_1 was already allowed by iPad',
    });
  });

  it('tries the relay when the direct path cannot be reached, with a fresh call', async () => {
    const withRelay: HostRecord = { ...record, relay: { url: 'https://relay.example', ticket: 't' } };
    const h = hostFetch(() => ({ result: approval('denied') }), true);
    expect(await answerByOneShot(withRelay, 'a_1', 'deny', deps(h.fetch))).toEqual({ kind: 'denied' });
    expect(h.urls).toEqual([
      'https://studio.example.ts.net:8443/rc/call',
      `https://relay.example/relay/call/${HOST_ID}`,
    ]);
    expect(callTargets({ ...withRelay, apiBase: 'http://192.168.1.20:8080' }, 'https://relay.example')).toEqual([
      `https://relay.example/relay/call/${HOST_ID}`,
    ]);
    // Paired through the relay, the app's address is the relay's: only the relay's call path.
    expect(callTargets({ ...withRelay, apiBase: 'https://relay.example' }, 'https://relay.example')).toEqual([
      `https://relay.example/relay/call/${HOST_ID}`,
    ]);
  });
});
