import { generateBoxKeyPair, pairWithHost, parsePairingLink } from '@tether/shared-protocol';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pairOverHttp, until } from '../../test/support/remote-device.js';
import { runCommand } from '../../test/support/run-command.js';
import type { TestHost } from '../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../test/support/test-host.js';
import { pairAllowCommand, pairRequestsCommand } from './commands/pair.js';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost({ remote: LOCAL_REMOTE });
});
afterEach(async () => {
  await t.close();
});

const data = (argv: string[]) => [...argv, '--data-dir', join(t.dir, 'data')];

/** A phone on the relay's page, its request come through the host's relay link. */
function pairFromRelayPage(origin: string) {
  const link = parsePairingLink(t.pairLink());
  if (!link.ok) throw new Error(link.error.message);
  const signal = new AbortController().signal;
  return pairWithHost({
    link: link.value,
    devicePublicKey: generateBoxKeyPair().publicKey,
    label: 'iPhone · Safari',
    onCode: () => undefined,
    post: (body) =>
      t.host.parts.gateway.pair(body, '203.0.113.9', signal, {
        secure: true,
        page: { from: 'relay', origin, app: true },
      }),
  });
}

describe('tether pair requests / pair allow', () => {
  it('names where each phone loaded the app from and what it gets; --scopes gives more at the computer', async () => {
    // A phone on a relay's page: only watch and approve unless more is asked for.
    const fromRelay = pairFromRelayPage('https://relay.example.com');
    const relayed = await until(() => t.host.parts.gateway.pairing.requests()[0], 5000, 'the relay request');
    const listed = await runCommand(pairRequestsCommand, data([]));
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toMatch(/APP FROM\s+GETS/);
    expect(listed.out).toMatch(new RegExp(`${relayed.id}.*relay https://relay\\.example\\.com\\s+watch,approve\\s`));
    expect(listed.out).toContain(
      'If you run that page yourself: tether pair allow ID --scopes watch,approve,chat,terminal',
    );
    const json = JSON.parse((await runCommand(pairRequestsCommand, data(['--json']))).out) as unknown[];
    expect(json).toEqual([
      expect.objectContaining({
        page: { from: 'relay', origin: 'https://relay.example.com', app: true },
        scopes: ['watch', 'approve'],
      }),
    ]);
    const allowed = await runCommand(pairAllowCommand, data([relayed.id, '--scopes', 'watch,approve,chat,terminal']));
    expect(allowed.code, allowed.err).toBe(0);
    expect(allowed.out).toContain('(watch, approve, chat, terminal)');
    expect((await fromRelay).ok).toBe(true);

    // A phone on this computer's own page (its browser's Origin): everything but admin by default.
    const link = parsePairingLink(t.pairLink());
    if (!link.ok) throw new Error(link.error.message);
    const direct = pairOverHttp(t.url, link.value, { headers: { Origin: t.url } });
    const own = await until(() => t.host.parts.gateway.pairing.requests()[0], 5000, 'the direct request');
    const again = await runCommand(pairRequestsCommand, data([]));
    expect(again.out).toMatch(
      new RegExp(`${own.id}.*this computer ${t.url.replace(/\./g, '\\.')}\\s+watch,approve,chat,terminal\\s`),
    );
    expect(again.out).not.toContain('If you run that page yourself');
    const plain = await runCommand(pairAllowCommand, data([own.id]));
    expect(plain.out).toContain('(watch, approve, chat, terminal)');
    expect((await direct.done).ok).toBe(true);
  });
});
