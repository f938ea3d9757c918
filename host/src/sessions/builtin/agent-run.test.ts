import type { Approval, SessionEventBody } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest } from '../../models/types.js';
import { ApprovalStore } from '../../store/approval-store.js';
import { openDatabase } from '../../store/database.js';
import { EventLog } from '../../store/event-log.js';
import { SessionStore } from '../../store/session-store.js';
import { BUILTIN_TOOLS } from '../../tools/builtin-tools.js';
import { ApprovalBroker } from '../approval-broker.js';
import { ApprovalGate } from '../approval-gate.js';
import { folderPlaces } from '../approval-policy.js';
import { hostLocalContext } from '../host-context.js';
import type { RunHost } from './agent-run.js';
import { runAgent } from './agent-run.js';

/** Plays one scripted turn per request, and keeps a copy of what each request carried. */
class ScriptedModel implements ModelProvider {
  readonly spec = 'scripted';
  readonly requests: ModelRequest[] = [];

  constructor(private readonly turns: ModelEvent[][]) {}

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    this.requests.push({ ...request, messages: [...request.messages] });
    await Promise.resolve();
    yield* this.turns[this.requests.length - 1] ?? [{ type: 'end', stopReason: 'end' }];
  }
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * One run of the loop with nothing around it but a real store, log and approval broker, this
 * computer as the place, and `answer` deciding each approval as it is asked.
 */
function loop(
  turns: ModelEvent[][],
  answer: (approval: Approval) => { decision: 'allow-once' | 'deny'; note?: string },
) {
  const project = realpathSync(mkdtempSync(join(tmpdir(), 'tether-loop-')));
  dirs.push(project);
  writeFileSync(join(project, 'notes.txt'), 'first line\nsecond line\n');
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
    model: 'scripted',
    status: 'running',
    createdAt: 0,
    updatedAt: 0,
  });
  let ids = 0;
  const approvals = new ApprovalBroker(new ApprovalStore(db), log, clock, () => `a${++ids}`);
  const asked: Approval[] = [];
  log.subscribe('answers', (event) => {
    if (event.type !== 'approval.requested') return;
    asked.push(event.approval);
    approvals.answer(event.approval.id, answer(event.approval), { kind: 'local', label: 'test' });
  });
  const context = hostLocalContext({ HOME: project });
  const events: SessionEventBody[] = [];
  const waiting: boolean[] = [];
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
      setWaiting: (on) => waiting.push(on),
      inFolder: folderPlaces(context, () => project),
    }),
    context,
    tools: () => BUILTIN_TOOLS,
    system: 'You are a test.',
    signal: new AbortController().signal,
  };
  const model = new ScriptedModel(turns);
  const history: ChatMessage[] = [{ role: 'user', text: 'do it' }];
  return { run: runAgent(host, model, 'scripted', history), model, events, asked, waiting, project };
}

const shellCall = (command: string): ModelEvent[] => [
  { type: 'text', text: 'Let me look.' },
  { type: 'tool-call', call: { id: 'c1', name: 'shell', arguments: JSON.stringify({ command }) } },
  { type: 'usage', inputTokens: 10, outputTokens: 5 },
  { type: 'end', stopReason: 'tool-use' },
];
const done: ModelEvent[] = [
  { type: 'text', text: 'Done.' },
  { type: 'usage', inputTokens: 20, outputTokens: 2 },
  { type: 'end', stopReason: 'end' },
];

/** What the model was told as the result of its last tool call. */
function lastToolResult(request: ModelRequest | undefined): { output: string; isError?: boolean } | undefined {
  const last = request?.messages.at(-1);
  return last?.role === 'tool' ? last.results[0] : undefined;
}

describe('the agent loop, alone', () => {
  it('asks before a shell command, runs it in the folder once allowed, and gives the model its output', async () => {
    const t = loop([shellCall('cat notes.txt'), done], () => ({ decision: 'allow-once' }));
    const result = await t.run;
    expect(result).toEqual({ status: 'done', usage: { inputTokens: 30, outputTokens: 7 } });
    expect(t.asked).toHaveLength(1);
    expect(t.asked[0]).toMatchObject({ tool: 'shell', kind: 'shell', action: 'cat notes.txt', cwd: t.project });
    expect(t.waiting).toEqual([true, false]);
    expect(t.model.requests).toHaveLength(2);
    expect(t.model.requests[0]!.system).toBe('You are a test.');
    expect(lastToolResult(t.model.requests[1])?.output).toContain('second line');
    expect(t.events.filter((e) => e.type === 'message').map((e) => e.type === 'message' && e.text)).toEqual([
      'Let me look.',
      'Done.',
    ]);
    expect(t.events.find((e) => e.type === 'tool.finished')).toMatchObject({ ok: true, exitCode: 0 });
  });

  it('tells the model of a denial and its note, and runs nothing', async () => {
    const t = loop([shellCall('rm notes.txt'), done], () => ({ decision: 'deny', note: 'use make clean instead' }));
    expect(await t.run).toMatchObject({ status: 'done' });
    const told = lastToolResult(t.model.requests[1]);
    expect(told?.isError).toBe(true);
    expect(told?.output).toContain('use make clean instead');
    expect(t.events.find((e) => e.type === 'tool.finished')).toMatchObject({ ok: false });
    expect(existsSync(join(t.project, 'notes.txt'))).toBe(true);
  });

  it('reads a file in the folder without asking', async () => {
    const read: ModelEvent[] = [
      { type: 'tool-call', call: { id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' } },
      { type: 'end', stopReason: 'tool-use' },
    ];
    const t = loop([read, done], () => {
      throw new Error('a read in the folder asks nothing');
    });
    expect(await t.run).toMatchObject({ status: 'done' });
    expect(t.asked).toEqual([]);
    expect(lastToolResult(t.model.requests[1])?.output).toContain('first line');
  });
});
