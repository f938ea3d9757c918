import { generateBoxKeyPair, pairWithHost, parsePairingLink, relayPairUrl } from '@tether/shared-protocol';
import { expect, test } from '@playwright/test';
import { eventually, hostDataDir, makeDataDir, removeDataDir, tetherJson } from '../support/host-process.js';
import { postPairBody } from '../support/pair-client.js';
import { RelayAdversary } from '../support/relay-adversary.js';
import { startRelay } from '../support/relay-process.js';
import { tetherOnTty } from '../support/tty-process.js';

/**
 * The attack: a host given two relays, B (someone else's, serving the app) and A (the person's
 * own, `--no-app`). B serves the phone the page the pairing link opens, so it reads the link; it
 * drains the host off itself, and a program holding the link pairs through A. The prompt must not
 * say the phone loaded the app from A, and must not offer `r` ("I run this relay") for it: no page
 * of A sent that request.
 */
test('a pairing through a --no-app relay is labelled as a program’s, and r is not offered for it', async () => {
  test.setTimeout(90_000);
  const hostile = await RelayAdversary.start();
  const b = await startRelay(['--public-url', hostile.url]);
  hostile.front(b.port);
  const a = await startRelay(['--no-app']);
  const dataDir = makeDataDir();
  const tty = tetherOnTty(
    ['start', '--data-dir', hostDataDir(dataDir), '--relay', hostile.url, '--relay', a.url, '--relay-only'],
    {
      cwd: dataDir,
    },
  );
  try {
    // The link the host shows names B, the relay it is on: B's page reads it.
    const link = await eventually(
      () => new RegExp(`(${hostile.url.replace(/[.]/g, '\\.')}/#pair=\\S+)`).exec(tty.screen())?.[1],
      20_000,
      'the pairing link on B',
    );
    const parsed = parsePairingLink(link);
    if (!parsed.ok || !parsed.value.relay) throw new Error('the link names no relay');
    // B moves the host to A, and pairs through A from a program.
    const onA = `through the relay at ${a.url}`;
    hostile.drainHosts();
    await tty.see(onA, 20_000);
    const program = pairWithHost({
      link: parsed.value,
      devicePublicKey: generateBoxKeyPair().publicKey,
      label: 'iPhone · Safari',
      onCode: () => undefined,
      post: postPairBody(relayPairUrl(a.url, parsed.value.relay.hostId)!),
    });
    await eventually(() => (/Pair 'iPhone · Safari'\? code .*\[y\/N\]/.test(tty.screen()) ? true : undefined));
    expect(tty.screen()).not.toContain(`The phone loaded the app from the relay at ${a.url}`);
    expect(tty.screen()).toContain(`came through the relay at ${a.url}, which serves no app`);
    expect(tty.screen()).toContain('a program holding the pairing link sent it');
    expect(tty.screen()).not.toContain('[y/r/N]');
    // An `r` typed anyway is no answer it offered: the request is denied.
    await new Promise((resolve) => setTimeout(resolve, 200));
    tty.type('r\r');
    expect((await program).ok).toBe(false);
    expect(await tetherJson<unknown[]>(dataDir, ['devices'])).toEqual([]);
  } finally {
    tty.type('\x03');
    await new Promise((resolve) => setTimeout(resolve, 500));
    tty.kill();
    removeDataDir(dataDir);
    await hostile.stop();
    await b.stop();
    await a.stop();
  }
});
