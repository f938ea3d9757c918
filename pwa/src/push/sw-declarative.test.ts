import { declarativePush } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { HOST_ID, approvalPush, world } from './sw-test-world.js';

const SCOPE = 'https://studio.example.ts.net:8443/';

/**
 * A declarative message reaching the service worker after all (a browser that does not show the
 * form itself, or a future `mutable` message): shown, never dropped.
 */
describe('the service worker with a declarative message', () => {
  it('reads the payload it carries and shows the same notification as the worker form, buttons included', async () => {
    const viaWorker = world();
    await viaWorker.push.onPush(JSON.stringify(approvalPush()));
    const viaDeclarative = world();
    await viaDeclarative.push.onPush(JSON.stringify(declarativePush(approvalPush(), SCOPE, 'studio')));
    expect(viaDeclarative.shown).toEqual(viaWorker.shown);
    expect(viaDeclarative.shown[0]!.options.actions?.map((a) => a.action)).toEqual(['approve', 'deny']);
    await viaDeclarative.click('approve');
    expect(viaDeclarative.answers).toEqual([['a_1', 'allow-once']]);
  });

  it('shows one without a payload as it declares itself; a tap opens its screen, only within the app', async () => {
    const message = (navigate: string) =>
      JSON.stringify({
        web_push: 8030,
        notification: { title: 'Run a command on studio?', body: 'ls -la', navigate, tag: 'a_9' },
      });
    const w = world();
    await w.push.onPush(message(`${SCOPE}#/h/${HOST_ID}/a/a_9`));
    expect(w.shown[0]).toMatchObject({
      title: 'Run a command on studio?',
      options: { body: 'ls -la', tag: 'a_9', data: { open: `#/h/${HOST_ID}/a/a_9` } },
    });
    expect(w.shown[0]!.options.actions).toBeUndefined();
    await w.click('');
    expect(w.opened).toEqual([`${SCOPE}#/h/${HOST_ID}/a/a_9`]);

    const elsewhere = world();
    await elsewhere.push.onPush(message('https://evil.example/#/h/x/a/y'));
    await elsewhere.click('');
    expect(elsewhere.opened).toEqual([`${SCOPE}#/`]);
  });

  it('shows the unknown notification for a message that is neither form', async () => {
    const w = world();
    await w.push.onPush(JSON.stringify({ web_push: 8030, notification: { title: '', navigate: 'nowhere' } }));
    expect(w.shown[0]!.options.tag).toBe('tether:unknown');
  });
});
