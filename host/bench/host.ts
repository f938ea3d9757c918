// npm run bench -- host
// Event log: appends and replays per second, against raw SQLite inserts and reads of the same rows
// in the same process (the baseline). Then host memory with 20 sessions streaming at once from
// the fake model server.
import type { SessionEvent } from '@tether/shared-protocol';
import { systemClock } from '@tether/shared-protocol';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/store/database.js';
import { EventLog } from '../src/store/event-log.js';
import { SessionStore } from '../src/store/session-store.js';
import { FakeAnthropicServer } from '../test/fakes/fake-anthropic-server.js';
import { startTestHost } from '../test/support/test-host.js';

const EVENTS = 20_000;
const dir = mkdtempSync(join(tmpdir(), 'tether-bench-'));

function perSecond(count: number, ms: number): string {
  return `${Math.round((count / ms) * 1000).toLocaleString('en-US')}/s`;
}

function logBench() {
  const db = openDatabase(join(dir, 'log.db'));
  const sessions = new SessionStore(db);
  const now = Date.now();
  sessions.insert({
    id: 's1',
    title: 't',
    kind: 'agent',
    place: 'local',
    cwd: '/',
    model: 'demo',
    status: 'idle',
    createdAt: now,
    updatedAt: now,
  });
  const log = new EventLog(db, systemClock);
  const text = 'a few words of streamed text, as a delta carries ';

  let start = performance.now();
  for (let i = 0; i < EVENTS; i++) log.append('s1', { type: 'message.delta', messageId: 'm1', text });
  const appendMs = performance.now() - start;

  db.exec(
    'CREATE TABLE raw (session_id TEXT, seq INTEGER, type TEXT, payload TEXT, at INTEGER, PRIMARY KEY (session_id, seq)) WITHOUT ROWID',
  );
  const insert = db.prepare('INSERT INTO raw VALUES (?, ?, ?, ?, ?)');
  const payload = JSON.stringify({ messageId: 'm1', text });
  start = performance.now();
  for (let i = 0; i < EVENTS; i++) insert.run('s1', i + 1, 'message.delta', payload, now);
  const rawMs = performance.now() - start;

  start = performance.now();
  let replayed = 0;
  for (const _event of log.readAll('s1')) replayed++;
  const replayMs = performance.now() - start;

  const select = db.prepare(
    'SELECT seq, type, payload, at FROM raw WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT 1000',
  );
  start = performance.now();
  let rawRead = 0;
  for (let after = 0; ;) {
    const rows = select.all('s1', after) as { seq: number; payload: string }[];
    // The baseline parses each payload too: no reader can skip that.
    for (const row of rows) if (JSON.parse(row.payload) === null) throw new Error('unreachable');
    rawRead += rows.length;
    if (rows.length < 1000) break;
    after = rows[rows.length - 1]!.seq;
  }
  const rawReadMs = performance.now() - start;
  db.close();

  console.log(
    `event log (${EVENTS.toLocaleString('en-US')} message.delta events, one transaction each, WAL, synchronous=NORMAL)`,
  );
  console.log(
    `  append: ${perSecond(EVENTS, appendMs)}   raw insert baseline: ${perSecond(EVENTS, rawMs)}   ratio ${(rawMs / appendMs).toFixed(2)}`,
  );
  console.log(
    `  replay: ${perSecond(replayed, replayMs)}   raw read + JSON.parse: ${perSecond(rawRead, rawReadMs)}   ratio ${(rawReadMs / replayMs).toFixed(2)}`,
  );
}

async function memoryBench() {
  const fake = new FakeAnthropicServer();
  const url = await fake.start();
  const t = await startTestHost({ env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url }, model: 'anthropic:m' });
  const words = Array.from({ length: 400 }, (_, i) => `word${i} `);
  for (let i = 0; i < 20; i++) fake.enqueue({ text: words, chunkDelayMs: 10 });
  global.gc?.();
  const before = process.memoryUsage();
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: `session ${i}` });
    if (!created.ok) throw new Error(created.error.message);
    ids.push(created.value.id);
  }
  let peakRss = 0;
  let peakHeap = 0;
  const started = performance.now();
  while (ids.some((id) => t.host.parts.sessions.isRunning(id))) {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
    await new Promise((r) => setTimeout(r, 50));
  }
  const elapsed = performance.now() - started;
  const deltas = ids.reduce(
    (n, id) => n + t.events(id).filter((e: SessionEvent) => e.type === 'message.delta').length,
    0,
  );
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
  console.log('host memory, 20 sessions streaming 400 chunks each from the fake Anthropic server');
  console.log(
    `  before: rss ${mb(before.rss)}, heap ${mb(before.heapUsed)}   peak: rss ${mb(peakRss)}, heap ${mb(peakHeap)}`,
  );
  console.log(`  ${(elapsed / 1000).toFixed(1)} s, ${deltas} delta events stored (coalesced from ${20 * 400} chunks)`);
  await t.close();
  await fake.close();
}

logBench();
await memoryBench();
rmSync(dir, { recursive: true, force: true });
