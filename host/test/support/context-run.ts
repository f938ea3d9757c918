import type { SessionEventBody } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunResult } from '../../src/sessions/session-backend.js';
import { ApprovalBroker } from '../../src/sessions/approval-broker.js';
import { ApprovalGate } from '../../src/sessions/approval-gate.js';
import { folderPlaces } from '../../src/sessions/approval-policy.js';
import type { RunHost } from '../../src/sessions/builtin/agent-run.js';
import { runAgent } from '../../src/sessions/builtin/agent-run.js';
import { buildHistory } from '../../src/sessions/builtin/history.js';
import { hostLocalContext } from '../../src/sessions/host-context.js';
import { ApprovalStore } from '../../src/store/approval-store.js';
import { openDatabase } from '../../src/store/database.js';
import { EventLog } from '../../src/store/event-log.js';
import { SessionStore } from '../../src/store/session-store.js';
import { BUILTIN_TOOLS } from '../../src/tools/builtin-tools.js';
import type { WindowedModelOptions } from '../fakes/windowed-model.js';
import { WindowedModel } from '../fakes/windowed-model.js';

/** Files the stand-in model reads in turn: sizes from 300 B to 12 KB, so outputs vary. */
const FILE_SIZES = [300, 1200, 4000, 12_000, 800, 2500, 7000, 500];

export interface ContextRun {
  result: RunResult;
  model: WindowedModel;
  events: SessionEventBody[];
  /** The history rebuilt from the session's log after the run. */
  rebuilt: ReturnType<typeof buildHistory>;
  close(): void;
}

/**
 * One run of the real loop (real SQLite log, real read_file on real files, this computer) against
 * the windowed stand-in model, which reads `steps` files one call at a time.
 */
export async function contextRun(
  options: Omit<WindowedModelOptions, 'call'> & { maxModelCalls?: number },
): Promise<ContextRun> {
  const project = realpathSync(mkdtempSync(join(tmpdir(), 'tether-context-')));
  FILE_SIZES.forEach((size, i) =>
    writeFileSync(join(project, `f${i}.txt`), `${'line of text\n'.repeat(size / 13)}end ${i}\n`),
  );
  const clock = new ManualClock(0);
  const db = openDatabase(':memory:');
  const log = new EventLog(db, clock);
  const sessions = new SessionStore(db);
  sessions.insert({
    id: 's1',
    title: 't',
    kind: 'agent',
    place: 'local',
    cwd: project,
    model: 'stand-in',
    status: 'running',
    createdAt: 0,
    updatedAt: 0,
  });
  let ids = 0;
  const approvals = new ApprovalBroker(new ApprovalStore(db), log, clock, () => `a${++ids}`);
  const context = hostLocalContext({ HOME: project });
  const events: SessionEventBody[] = [];
  log.append('s1', { type: 'message', messageId: 'm0', role: 'user', text: 'Read every file, one at a time.' });
  const host: RunHost = {
    sessionId: 's1',
    clock,
    newId: (prefix) => `${prefix}${++ids}`,
    append: (body) => {
      events.push(body);
      log.append('s1', body);
    },
    record: () => sessions.get('s1')!,
    takeQueued: () => [],
    gate: new ApprovalGate(approvals, {
      record: () => sessions.get('s1')!,
      addAllowRule: () => undefined,
      setWaiting: () => undefined,
      inFolder: folderPlaces(context, () => project),
    }),
    context,
    tools: () => BUILTIN_TOOLS,
    system: 'You are a coding agent. Read what you are asked to read.',
    contextWindow: options.window,
    maxModelCalls: options.maxModelCalls ?? 100_000,
    signal: new AbortController().signal,
  };
  const model = new WindowedModel({
    ...options,
    call: (step) => ({ name: 'read_file', arguments: JSON.stringify({ path: `f${step % FILE_SIZES.length}.txt` }) }),
  });
  const result = await runAgent(host, model, 'stand-in', buildHistory(log.readAll('s1')));
  return {
    result,
    model,
    events,
    rebuilt: buildHistory(log.readAll('s1')),
    close: () => {
      db.close();
      rmSync(project, { recursive: true, force: true });
    },
  };
}
