import type { SessionEventBody } from '@tether/shared-protocol';
import { MAX_PLAN_ENTRIES, MAX_TOOL_DIFF_EVENT, MAX_TOOL_OUTPUT_EVENT } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../store/session-store.js';
import { MAX_TOOL_INPUT_EVENT, rawExitCode, rawOutputText } from './acp-content-text.js';
import { AcpUpdateLog, MAX_MESSAGE_CHARS, MAX_UPDATE_BURST, UPDATES_PER_SECOND } from './acp-update-log.js';

function setup() {
  const events: SessionEventBody[] = [];
  let n = 0;
  const log = new AcpUpdateLog({
    run: {
      append: (body) => events.push(body),
      clock: new ManualClock(),
      newId: (prefix) => `${prefix}${++n}`,
      record: () => ({ cwd: '/work/project' }) as SessionRecord,
    },
    terminalOutput: (id) => (id === 'term1' ? 'terminal says hi' : undefined),
  });
  const of = <T extends SessionEventBody['type']>(type: T) =>
    events.filter((e): e is Extract<SessionEventBody, { type: T }> => e.type === type);
  return { log, events, of };
}

describe('ACP updates as Tether events', () => {
  it('a reply longer than one event goes on in new messages, every character kept', () => {
    const { log, of } = setup();
    const text = 'abcdefghij'.repeat(30_000);
    log.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
    log.endMessage();
    const messages = of('message');
    expect(messages.length).toBe(3);
    expect(messages.every((m) => m.text.length <= MAX_MESSAGE_CHARS)).toBe(true);
    expect(messages.map((m) => m.text).join('')).toBe(text);
  });

  it('a huge tool input is carried as a cut preview; output and the plan are bounded', () => {
    const { log, of } = setup();
    log.update({
      sessionUpdate: 'tool_call',
      toolCallId: 'agent-id',
      title: 'Run',
      kind: 'execute',
      rawInput: { command: 'x'.repeat(1_000_000) },
    });
    const started = of('tool.started')[0]!;
    expect(started.toolCallId).toBe('t1');
    expect(JSON.stringify(started.input).length).toBeLessThan(MAX_TOOL_INPUT_EVENT + 100);
    expect(started.input).toMatchObject({ truncated: true });
    log.update({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'agent-id',
      status: 'completed',
      content: [
        { type: 'content', content: { type: 'text', text: 'y'.repeat(MAX_TOOL_OUTPUT_EVENT * 2) } },
        { type: 'terminal', terminalId: 'term1' },
      ],
    });
    const done = of('tool.finished')[0]!;
    expect(done.output.length).toBe(MAX_TOOL_OUTPUT_EVENT);
    expect(done.truncated).toBe(true);

    log.update({
      sessionUpdate: 'plan',
      entries: Array.from({ length: 500 }, (_, i) => ({ content: `step ${i}`, status: 'pending', priority: 'low' })),
    });
    expect(of('plan')[0]!.entries).toHaveLength(MAX_PLAN_ENTRIES);
  });

  it('a terminal shown in a tool call contributes its output; a run that ends reports unfinished calls', () => {
    const { log, of } = setup();
    log.update({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'ls', kind: 'execute' });
    log.update({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'a',
      content: [{ type: 'terminal', terminalId: 'term1' }],
    });
    expect(of('tool.updated')[0]!.output).toBe('terminal says hi');
    log.update({ sessionUpdate: 'tool_call', toolCallId: 'b', title: 'never ends' });
    log.close('Interrupted.');
    expect(of('tool.finished').map((e) => [e.toolCallId, e.ok, e.output])).toEqual([
      ['t1', false, 'Interrupted.'],
      ['t2', false, 'Interrupted.'],
    ]);
  });

  it('thoughts and other updates are left out and counted', () => {
    const { log, events } = setup();
    log.update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } });
    expect(events).toEqual([]);
    expect(log.skipped.get('agent_thought_chunk')).toBe(1);
  });

  it('a call’s output is its text content, else its rawOutput; a permission request’s text is neither', () => {
    const { log, of } = setup();
    const asked = log.merge(
      {
        toolCallId: 'c1',
        title: 'echo hi',
        kind: 'execute',
        content: [{ type: 'content', content: { type: 'text', text: 'May I?\nAvailable Decisions: …' } }],
      },
      'permission',
    );
    expect(asked.asked).toEqual(['May I?\nAvailable Decisions: …']);
    expect(asked.content).toEqual([]);
    log.update({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: 'completed',
      rawOutput: { stdout: 'hi\n', stderr: '', exit_code: 0 },
    });
    // Claude Code: a terminal in the content wins over its rawOutput blocks.
    log.update({ sessionUpdate: 'tool_call', toolCallId: 'c2', title: 'Bash', kind: 'execute' });
    log.update({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c2',
      content: [{ type: 'terminal', terminalId: 'term1' }],
    });
    log.update({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c2',
      status: 'completed',
      rawOutput: [{ type: 'text', text: 'Exited with code 0.' }],
    });
    log.update({ sessionUpdate: 'tool_call', toolCallId: 'c3', title: 'x', status: 'failed', rawOutput: 'plain' });
    expect(of('tool.finished').map((e) => [e.output, e.exitCode])).toEqual([
      ['hi\n', 0],
      ['terminal says hi', undefined],
      ['plain', undefined],
    ]);
  });

  it('rawOutput reads as text whatever its shape', () => {
    expect(rawOutputText({ stdout: 'a', stderr: 'b', exit_code: 2 })).toBe('a\nb\nexit code 2');
    expect(rawOutputText({ aggregated_output: 'both\n', stdout: 'x', exit_code: 1 })).toBe('both\nexit code 1');
    // Codex's end of a command with its streams empty (the output came before the end was made)
    // still has what it printed in formatted_output, or in stdout: the first that holds text.
    expect(rawOutputText({ aggregated_output: '', stdout: '', formatted_output: 'late\n', exit_code: 0 })).toBe(
      'late\n',
    );
    expect(rawOutputText({ aggregated_output: '', stdout: 'out\n', exit_code: 0 })).toBe('out\n');
    expect(rawOutputText({ aggregated_output: '', stdout: '', formatted_output: '', exit_code: 3 })).toBe(
      'exit code 3',
    );
    expect(
      rawOutputText([
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ]),
    ).toBe('onetwo');
    expect(rawOutputText({ other: 1 })).toBe('{\n  "other": 1\n}');
    expect(rawOutputText(null)).toBe('');
    expect(rawOutputText('x'.repeat(MAX_TOOL_OUTPUT_EVENT * 3)).length).toBe(MAX_TOOL_OUTPUT_EVENT * 3);
    expect(rawExitCode({ exit_code: 1.5 })).toBeUndefined();
    expect(rawExitCode({ exitCode: 3 })).toBe(3);
  });

  it('an agent past its burst of updates is reported once and heard no more; a steady pace is not', () => {
    const events: SessionEventBody[] = [];
    const clock = new ManualClock();
    let floods = 0;
    let n = 0;
    const log = new AcpUpdateLog({
      run: {
        append: (body) => events.push(body),
        clock,
        newId: (prefix) => `${prefix}${++n}`,
        record: () => ({ cwd: '/work/project' }) as SessionRecord,
      },
      terminalOutput: () => undefined,
      onFlood: () => floods++,
    });
    const call = (i: number) => log.update({ sessionUpdate: 'tool_call', toolCallId: `c${i}`, title: `call ${i}` });
    for (let i = 0; i < MAX_UPDATE_BURST; i++) call(i);
    clock.advance(10_000);
    for (let i = 0; i < 10 * UPDATES_PER_SECOND; i++) call(MAX_UPDATE_BURST + i);
    expect(floods).toBe(0);
    expect(events).toHaveLength(MAX_UPDATE_BURST + 10 * UPDATES_PER_SECOND);
    call(-1);
    call(-2);
    log.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'more' } });
    expect(floods).toBe(1);
    expect(log.isFlooded).toBe(true);
    expect(events).toHaveLength(MAX_UPDATE_BURST + 10 * UPDATES_PER_SECOND);
  });

  it('diffs a tool call only as far as an event carries, however many diffs the agent sends', () => {
    const { log, of } = setup();
    // Each diff reads its item's path once: count the reads to see how many were diffed.
    let diffed = 0;
    const content = Array.from({ length: 20_000 }, (_, i) => {
      const item = { type: 'diff' as const, oldText: 'a\n'.repeat(20), newText: 'b\n'.repeat(20) };
      Object.defineProperty(item, 'path', { enumerable: true, get: () => (diffed++, `/work/project/f${i}`) });
      return item as typeof item & { path: string };
    });
    log.update({ sessionUpdate: 'tool_call', toolCallId: 'many', title: 'Edit', kind: 'edit', content });
    const started = of('tool.started')[0]!;
    expect(started.diff!.length).toBeLessThanOrEqual(MAX_TOOL_DIFF_EVENT);
    expect(started.diffTruncated).toBe(true);
    // About 2,000 of 20,000 fill an event: the rest are never diffed.
    expect(diffed).toBeLessThan(5_000);
  });
});
