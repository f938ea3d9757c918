import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SessionEvent, WebSocketConstructor } from '@tether/shared-protocol';
import { DeviceClient, fromBase64UrlExact, parsePairingLink, webSocketConnect } from '@tether/shared-protocol';
import { expect, test } from '@playwright/test';
import { WebSocket } from 'ws';
import type { FakeModel } from '../support/fake-openai.js';
import { startChatServer } from '../support/fake-openai.js';
import { eventually, makeDataDir, removeDataDir, startHost, tether } from '../support/host-process.js';
import { pairFromNode } from '../support/pair-client.js';

// The attack as it was shown: a device paired with only `watch` and `chat` starts a session in the
// home folder, and the model asks the built-in read_file tool for token files, shell history and a
// hard link to the SSH key. Against the real `tether start`, with HOME pointing at a test home.

const NEEDLE = 'secret-token-needle';
const CREDENTIALS = [
  '.git-credentials',
  '.npmrc',
  '.netrc',
  '.pgpass',
  '.config/hub',
  '.vault-token',
  '.bash_history',
  '.config/rclone/rclone.conf',
  '.terraform.d/credentials.tfrc.json',
  '.cargo/credentials.toml',
];
/** Read by the model in this order: every credential file, the hard link, then a hidden dotfile. */
const READS = [...CREDENTIALS, 'code/notes.txt', '.bashrc'];

let model: FakeModel | undefined;
let dataDir: string | undefined;

test.afterEach(async () => {
  await model?.close();
  if (dataDir) removeDataDir(dataDir);
  model = dataDir = undefined;
});

/** Asks for READS one by one, one read_file call per turn, then stops. */
function readingModel(): Promise<FakeModel> {
  return startChatServer((messages, write) => {
    const done = messages.filter((m) => m.role === 'tool').length;
    const path = READS[done];
    if (path === undefined) {
      write({ role: 'assistant', content: 'Done.' }, null);
      write({}, 'stop');
      return;
    }
    write(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            index: 0,
            id: `call_read_${done}`,
            type: 'function',
            function: { name: 'read_file', arguments: JSON.stringify({ path }) },
          },
        ],
      },
      null,
    );
    write({}, 'tool_calls');
  });
}

test('a watch,chat device gets no credential file and no hard link to a key, and a hidden dotfile asks', async () => {
  dataDir = makeDataDir();
  const home = join(dataDir, 'home');
  for (const file of [...CREDENTIALS, '.ssh/id_ed25519', '.bashrc', 'code/app.ts']) {
    mkdirSync(dirname(join(home, file)), { recursive: true });
    writeFileSync(join(home, file), `${NEEDLE} in ${file}\n`);
  }
  linkSync(join(home, '.ssh', 'id_ed25519'), join(home, 'code', 'notes.txt'));
  model = await readingModel();
  const host = await startHost(
    join(dataDir, 'data'),
    ['--root', home, '--model', `openai-compatible:fake@${model.url}`],
    {
      HOME: home,
    },
  );
  let client: DeviceClient | undefined;
  try {
    const listening = await host.waitFor((l) => l.event === 'listening');
    const link = parsePairingLink(String(listening.pairUrl));
    if (!link.ok) throw new Error(link.error.message);
    const pairing = pairFromNode(String(listening.url), link.value, 'watch and chat only');
    const request = await host.waitFor((l) => l.event === 'pair.request');
    const allowed = await tether(host.dataDir, ['pair', 'allow', String(request.id), '--scopes', 'watch,chat']);
    expect(allowed.code).toBe(0);
    const reply = await pairing.done;
    if (!reply.ok) throw new Error(reply.error.message);
    client = new DeviceClient({
      deviceId: reply.value.deviceId,
      deviceKeys: pairing.keys,
      hostBoxPublicKey: fromBase64UrlExact(reply.value.hostBoxPublicKey, 32)!,
      connect: webSocketConnect(
        `${String(listening.url).replace('http', 'ws')}/rc/ws`,
        WebSocket as unknown as WebSocketConstructor,
      ),
    });
    const events: SessionEvent[] = [];
    client.onEvent((e) => {
      if ('seq' in e) events.push(e);
    });
    client.start();
    const created = await client.call('sessions.create', { cwd: home, text: 'read my settings' });
    if (!created.ok) throw new Error(created.error.message);
    client.watch(created.value.session.id, 0);

    // The run stops at the hidden dotfile, waiting for an answer this device cannot give.
    const asked = await eventually(
      () => events.find((e) => e.type === 'approval.requested'),
      30_000,
      'the approval for the hidden dotfile',
    );
    expect(asked.type === 'approval.requested' && asked.approval.action.split('\n')[0]).toBe(
      `Read ${join(home, '.bashrc')}`,
    );
    const finished = events.filter((e) => e.type === 'tool.finished');
    expect(finished).toHaveLength(READS.length - 1);
    for (const [i, event] of finished.entries()) {
      expect(event.type === 'tool.finished' && event.ok, READS[i]).toBe(false);
      expect(JSON.stringify(event), READS[i]).not.toContain(NEEDLE);
    }
    expect(JSON.stringify(events)).not.toContain(NEEDLE);
  } finally {
    client?.stop();
    await host.stop();
  }
});
