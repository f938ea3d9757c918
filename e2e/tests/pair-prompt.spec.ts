import { generateBoxKeyPair, pairWithHost, parsePairingLink, relayPairUrl } from '@tether/shared-protocol';
import { expect, test } from '@playwright/test';
import { eventually, hostDataDir, makeDataDir, removeDataDir, tetherJson } from '../support/host-process.js';
import { pairFromNode, postPairBody } from '../support/pair-client.js';
import { startRelay } from '../support/relay-process.js';
import { tetherOnTty } from '../support/tty-process.js';

/** `tether start` on a real terminal (a pty from `script`), answering its pairing prompt. */
test('on a terminal, tether start asks "Pair …? code … [y/N]" and pairs on y', async () => {
  const dataDir = makeDataDir();
  const tty = tetherOnTty(['start', '--data-dir', hostDataDir(dataDir), '--bind', '127.0.0.1', '--port', '0'], {
    cwd: dataDir,
  });
  try {
    const link = await eventually(
      () => /(http:\/\/127\.0\.0\.1:\d+\/#pair=\S+)/.exec(tty.screen())?.[1],
      15_000,
      'the pairing link',
    );
    const parsed = parsePairingLink(link);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const phone = pairFromNode(link.split('/#')[0]!, parsed.value, 'Pixel · Chrome');
    const question = await eventually(
      () => /Pair 'Pixel · Chrome'\? code (\d{3} \d{3}).*\[y\/N\]/.exec(tty.screen()),
      15_000,
      'the prompt',
    );
    // Typed a moment after the question appears, as a person would.
    await new Promise((resolve) => setTimeout(resolve, 200));
    tty.type('y\r');
    expect((await phone.done).ok).toBe(true);
    await eventually(() => (tty.screen().includes("Paired 'Pixel · Chrome'") ? true : undefined));
    const devices = await tetherJson<{ label: string }[]>(dataDir, ['devices']);
    expect(devices.map((d) => d.label)).toEqual(['Pixel · Chrome']);
    // The terminal asked with the code the phone shows.
    expect(question[1]!.replace(' ', '')).toBe(await phone.code);
  } finally {
    tty.type('\x03');
    await new Promise((resolve) => setTimeout(resolve, 500));
    tty.kill();
    removeDataDir(dataDir);
  }
});

/**
 * Paired on a relay's page, the app was the relay operator's: the terminal names the relay, y
 * allows watch and approve only (no chat, no terminal: nothing that writes a file), and r, "I run
 * this relay", allows more.
 */
test('on a terminal, a pair request from a relay’s page names the relay; y gives watch and approve, r gives more', async () => {
  const relay = await startRelay();
  const dataDir = makeDataDir();
  const tty = tetherOnTty(['start', '--data-dir', hostDataDir(dataDir), '--relay', relay.url, '--relay-only'], {
    cwd: dataDir,
  });
  try {
    const link = await eventually(
      () => new RegExp(`(${relay.url.replace(/[.]/g, '\\.')}/#pair=\\S+)`).exec(tty.screen())?.[1],
      15_000,
      'the pairing link',
    );
    /** A phone on the relay's page: its pair request goes to the relay, which forwards it. */
    const phoneOnRelayPage = (pairLink: string, label: string) => {
      const parsed = parsePairingLink(pairLink);
      if (!parsed.ok || !parsed.value.relay) throw new Error('the link names no relay');
      return pairWithHost({
        link: parsed.value,
        devicePublicKey: generateBoxKeyPair().publicKey,
        label,
        onCode: () => undefined,
        post: postPairBody(relayPairUrl(relay.url, parsed.value.relay.hostId)!),
      });
    };
    const scopesOf = async (label: string) =>
      (await tetherJson<{ label: string; scopes: string[] }[]>(dataDir, ['devices'])).find((d) => d.label === label)
        ?.scopes;

    const first = phoneOnRelayPage(link, 'Relay phone one');
    await eventually(() => (/Pair 'Relay phone one'\? code .*\[y\/r\/N\]/.test(tty.screen()) ? true : undefined));
    expect(tty.screen()).toContain(
      `The phone loaded the app from the relay at ${relay.url}: the request came through it.`,
    );
    expect(tty.screen()).toContain('Whoever runs that relay decides what the app does on the phone.');
    expect(tty.screen()).toContain('Allowed with y, this device gets only: watch, approve.');
    await new Promise((resolve) => setTimeout(resolve, 200));
    tty.type('y\r');
    expect((await first).ok).toBe(true);
    expect(await scopesOf('Relay phone one')).toEqual(['watch', 'approve']);

    const next = (await tetherJson<{ relay: { link: string } }>(dataDir, ['pair'])).relay.link;
    const second = phoneOnRelayPage(next, 'Relay phone two');
    await eventually(() => (/Pair 'Relay phone two'\? code .*\[y\/r\/N\]/.test(tty.screen()) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200));
    tty.type('r\r');
    expect((await second).ok).toBe(true);
    expect(await scopesOf('Relay phone two')).toEqual(['watch', 'approve', 'chat', 'terminal']);
  } finally {
    tty.type('\x03');
    await new Promise((resolve) => setTimeout(resolve, 500));
    tty.kill();
    removeDataDir(dataDir);
    await relay.stop();
  }
});
