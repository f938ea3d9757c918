import { describe, expect, it } from 'vitest';
import { utf8Decode } from '../encoding.js';
import type { ApprovalPush } from './push-payload.js';
import {
  MAX_DECLARATIVE_BYTES,
  declarativePush,
  decodeDeclarativePush,
  encodeDeclarativePush,
  pushFragment,
} from './declarative-push.js';

const approval: ApprovalPush = {
  v: 1,
  type: 'approval',
  hostId: 'h'.repeat(22),
  approvalId: 'a_1',
  sessionId: 's_1',
  title: 'Fix the build',
  summary: 'npm test',
  kind: 'shell',
  tool: 'shell',
  place: 'build-box',
  lockScreen: 'approve',
};

describe('declarative push messages', () => {
  it('declare the notification the worker would show, opening the card, with the payload as data', () => {
    expect(declarativePush(approval, 'https://studio.example/app/#/old', 'studio')).toEqual({
      web_push: 8030,
      notification: {
        title: 'Run a command on build-box (via studio)?',
        body: 'npm test\nFix the build · build-box (via studio)\nTap to see it whole and answer.',
        navigate: `https://studio.example/app/#/h/${'h'.repeat(22)}/a/a_1`,
        tag: 'a_1',
        silent: false,
        data: approval,
      },
    });
    expect(pushFragment({ ...approval, type: 'waiting', reason: 'question', text: '' })).toBe(
      `#/h/${'h'.repeat(22)}/s/s_1`,
    );
  });

  it('go without their data when too large with it, and not at all when too large without', () => {
    const push = declarativePush(approval, 'https://studio.example/', 'studio');
    const fits = encodeDeclarativePush(push)!;
    expect(decodeDeclarativePush(utf8Decode(fits)!)).toEqual({
      notification: { ...push.notification, data: undefined },
      payload: approval,
    });
    const long = `https://studio.example/${'a'.repeat(1000)}/`;
    const big = { ...push, notification: { ...push.notification, navigate: long, body: 'é'.repeat(1300) } };
    const bare = encodeDeclarativePush(big)!;
    expect(bare.length).toBeLessThanOrEqual(MAX_DECLARATIVE_BYTES);
    expect(decodeDeclarativePush(utf8Decode(bare)!)?.payload).toBeUndefined();
    const huge = { ...push, notification: { ...push.notification, body: 'é'.repeat(2000) } };
    expect(encodeDeclarativePush(huge)).toBeUndefined();
  });

  it('decode nothing that is not one: no 8030, no title, no navigate, too long', () => {
    const message = (change: object) =>
      JSON.stringify({ web_push: 8030, notification: { title: 't', navigate: 'https://x.example/', ...change } });
    expect(decodeDeclarativePush(message({}))?.notification.title).toBe('t');
    expect(decodeDeclarativePush(message({ title: '' }))).toBeUndefined();
    expect(decodeDeclarativePush(message({ navigate: 'not a url' }))).toBeUndefined();
    expect(
      decodeDeclarativePush(JSON.stringify({ web_push: 8031, notification: { title: 't', navigate: 'https://x/' } })),
    ).toBeUndefined();
    expect(decodeDeclarativePush(message({ body: 'x'.repeat(5000) }))).toBeUndefined();
    expect(decodeDeclarativePush('{')).toBeUndefined();
  });
});
