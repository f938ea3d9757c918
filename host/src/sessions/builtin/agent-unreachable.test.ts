import type { ExecErrorCode, SessionEventBody } from '@tether/shared-protocol';
import { execFail } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import type { ExecutionContext } from '@tether/machine';
import { describe, expect, it } from 'vitest';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../models/types.js';
import type { SessionRecord } from '../../store/session-store.js';
import { BUILTIN_TOOLS } from '../../tools/builtin-tools.js';
import type { RunHost } from './agent-run.js';
import { runAgent } from './agent-run.js';
import type { ApprovalBroker } from '../approval-broker.js';
import { ApprovalGate } from '../approval-gate.js';

/** A machine whose every operation answers with `code` (an offline machine: `unreachable`). */
function answeringWith(code: ExecErrorCode, message: string): ExecutionContext {
  const answer = () => Promise.resolve(execFail(code as 'unreachable', message));
  return {
    place: 'laptop',
    exec: answer,
    spawn: answer,
    checkFolder: answer,
    realPath: answer,
    readFile: answer,
    writeFile: answer,
    stat: answer,
    listDir: answer,
    search: answer,
  };
}

/** Asks for one tool call, then ends its turn with text; records what it was sent. */
class OneToolModel implements ModelProvider {
  readonly spec = 'scripted';
  readonly requests: ModelRequest[] = [];

  constructor(private readonly call: { name: string; arguments: string }) {}

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    // A copy: the loop goes on adding to the same history.
    this.requests.push({ ...request, messages: [...request.messages] });
    await Promise.resolve();
    if (this.requests.length === 1) {
      yield { type: 'tool-call', call: { id: 'call-1', ...this.call } };
      yield { type: 'end', stopReason: 'tool-use' };
    } else {
      yield { type: 'text', text: 'done' };
      yield { type: 'end', stopReason: 'end' };
    }
  }
}

function runOn(context: ExecutionContext, model: OneToolModel) {
  const events: SessionEventBody[] = [];
  const record: SessionRecord = {
    id: 's1',
    title: 't',
    kind: 'agent',
    place: context.place,
    cwd: '/home/someone/project',
    model: 'scripted',
    agent: null,
    status: 'running',
    archived: false,
    // Approvals are not what this is about: the shell command goes straight to the machine.
    autoApprove: true,
    allowRules: [],
    lastSeq: 0,
    lastLine: '',
    notify: 'needs',
    createdAt: 0,
    updatedAt: 0,
  };
  let ids = 0;
  const host: RunHost = {
    sessionId: record.id,
    clock: new ManualClock(0),
    newId: (prefix) => `${prefix}${++ids}`,
    append: (body) => events.push(body),
    record: () => record,
    takeQueued: () => [],
    gate: new ApprovalGate({} as ApprovalBroker, {
      record: () => record,
      addAllowRule: () => undefined,
      setWaiting: () => undefined,
      inFolder: () => Promise.resolve('outside' as const),
    }),
    context,
    tools: () => BUILTIN_TOOLS,
    system: '',
    signal: new AbortController().signal,
  };
  const run = runAgent(host, model, 'scripted', [{ role: 'user', text: 'go' }]);
  return { run, events };
}

describe('a tool whose machine is not reachable', () => {
  it.each([
    ['read_file', '{"path":"a.txt"}'],
    // The approval check reads the file first: that is where the machine is found missing.
    ['write_file', '{"path":"a.txt","content":"x"}'],
    ['shell', '{"command":"make"}'],
    ['search', '{"pattern":"x","regex":true}'],
  ])('%s ends the run with an error naming the machine, and the model is not asked again', async (name, args) => {
    const model = new OneToolModel({ name, arguments: args });
    const { run, events } = runOn(answeringWith('unreachable', 'it went offline 2 minutes ago'), model);
    const result = await run;
    expect(result).toMatchObject({
      status: 'error',
      error: 'the machine laptop is not reachable: it went offline 2 minutes ago',
    });
    expect(model.requests).toHaveLength(1);
    expect(events.find((e) => e.type === 'tool.finished')).toMatchObject({
      ok: false,
      output: 'it went offline 2 minutes ago',
    });
  });

  it('is unlike a file error, which goes to the model as the tool result', async () => {
    const model = new OneToolModel({ name: 'read_file', arguments: '{"path":"a.txt"}' });
    const { run } = runOn(answeringWith('not-found', 'a.txt does not exist'), model);
    expect(await run).toMatchObject({ status: 'done' });
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      results: [{ toolCallId: 'call-1', name: 'read_file', output: 'a.txt does not exist', isError: true }],
    });
  });
});
