import { parsePairingLink } from '@tether/shared-protocol';
import { expect, test } from '@playwright/test';
import { eventually, makeDataDir, removeDataDir, tetherJson } from '../support/host-process.js';
import { pairFromNode } from '../support/pair-client.js';
import { tetherOnTty } from '../support/tty-process.js';

/** `tether start` on a real terminal (a pty from `script`), answering its pairing prompt. */
test('on a terminal, tether start asks "Pair …? code … [y/N]" and pairs on y', async () => {
  const dataDir = makeDataDir();
  const tty = tetherOnTty(['start', '--data-dir', dataDir, '--bind', '127.0.0.1', '--port', '0'], { cwd: dataDir });
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
