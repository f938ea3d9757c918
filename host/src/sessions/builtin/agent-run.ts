import { DEFAULT_MAX_MODEL_CALLS, fail } from '@tether/shared-protocol';
import { fileChangedEvent } from './file-changes.js';
import { DEFAULT_CONTEXT_WINDOW, isContextOverflow } from '../../models/context-window.js';
import type { ChatMessage, ModelProvider, ToolCall, ToolResultMessage, ToolSpec } from '../../models/types.js';
import type { CompactionEvent } from './compaction.js';
import { compactHistory } from './compaction.js';
import { ContextBudget } from './context-budget.js';
import { ProviderError } from '../../models/types.js';
import type { AnyTool, ApprovalNeed, ToolOutcome } from '../../tools/tool.js';
import { eventOutput } from '../../tools/tool.js';
import { DeltaCoalescer } from './delta-coalescer.js';
import type { RunContext, RunResult } from '../session-backend.js';
import { userMessageEvent } from '../user-message.js';
import { chatAttachments, userChatMessage } from './chat-attachments.js';
import type { RequestShape } from './context-budget.js';
import { planRefused } from './plan-mode.js';
import { BudgetStop } from '../spend-guard.js';

/** Model calls in one run before it stops and says so, unless the run says otherwise: a guard
 * against a model that never ends. */
export const MAX_MODEL_CALLS_PER_RUN = DEFAULT_MAX_MODEL_CALLS;

/** A run of the built-in loop: the session's run context, its tools and its system prompt. */
export interface RunHost extends RunContext {
  tools: () => readonly AnyTool[];
  system: string;
  /** The model's context window in tokens (DEFAULT_CONTEXT_WINDOW when not said). */
  contextWindow?: number;
  /**
   * The `max_tokens` a call of `inputTokens` may have under the session's budget (`maxOutput`
   * without one); throws BudgetStop when the call may not be made at all (spend-guard.ts).
   */
  allowOutput?(inputTokens: number, maxOutput: number): number;
  /** What a call's tokens cost, where the model's price is known. */
  costOf?(inputTokens: number, outputTokens: number): { costUsd: number } | { unpriced: true };
}

/**
 * One run of the agent loop: model turn, tools (with approvals), again, until the model stops
 * and no follow-up is queued. Every step is an event in the session's log. An interrupt aborts
 * the model stream, kills a running tool's process group and cancels a pending approval.
 */
export async function runAgent(
  host: RunHost,
  provider: ModelProvider,
  model: string,
  history: ChatMessage[],
): Promise<RunResult> {
  const { signal } = host;
  const usage = { inputTokens: 0, outputTokens: 0 };
  const limit = host.maxModelCalls ?? MAX_MODEL_CALLS_PER_RUN;
  const budget = new ContextBudget(host.contextWindow ?? DEFAULT_CONTEXT_WINDOW);
  /** Checked before every model call, the compaction's summary included. */
  const allow = (request: RequestShape, maxOutput: number) =>
    host.allowOutput ? host.allowOutput(budget.measure(request), maxOutput) : maxOutput;
  const report = (inputTokens: number, outputTokens: number) =>
    host.progress?.({ usage: { inputTokens, outputTokens, ...host.costOf?.(inputTokens, outputTokens) } });
  const compact = async (tools: ToolSpec[], reason: CompactionEvent['reason']) => {
    const event = await compactHistory({
      provider,
      model,
      budget,
      system: host.system,
      tools,
      history,
      reason,
      signal,
      allow,
      onUsage: (inputTokens, outputTokens) => {
        usage.inputTokens += inputTokens;
        usage.outputTokens += outputTokens;
        report(inputTokens, outputTokens);
      },
    });
    if (event) {
      host.append(event);
      host.progress?.({ compacted: true, context: { tokens: event.tokensAfter, window: budget.window } });
    }
    return event;
  };
  try {
    for (let call = 0; call < limit; call++) {
      host.progress?.({ modelCall: call + 1 });
      const tools = host.tools().map((t) => t.spec);
      const shape = () => ({ system: host.system, tools, messages: history });
      // Before the limit, not at it: a request the provider would refuse is never sent.
      if (budget.needsCompaction(budget.measure(shape()))) await compact(tools, 'limit');
      let before = { ...usage };
      let turn;
      try {
        turn = await modelTurn(host, provider, model, history, tools, allow(shape(), budget.maxOutput), usage);
      } catch (error) {
        // The count was short of the provider's: one compaction and one retry, never a lost run.
        if (!isContextOverflow(error) || signal.aborted) throw error;
        budget.refused(shape());
        if (!(await compact(tools, 'overflow'))) throw error;
        before = { ...usage };
        turn = await modelTurn(host, provider, model, history, tools, allow(shape(), budget.maxOutput), usage);
      }
      const callInput = usage.inputTokens - before.inputTokens;
      // The history as sent (the assistant turn is pushed below): the provider's count scales the estimate.
      budget.calibrate(shape(), callInput);
      report(callInput, usage.outputTokens - before.outputTokens);
      host.progress?.({
        context: { tokens: callInput > 0 ? callInput : budget.measure(shape()), window: budget.window },
      });
      history.push({ role: 'assistant', text: turn.text, toolCalls: turn.toolCalls });
      if (turn.toolCalls.length > 0) {
        const results: ToolResultMessage[] = [];
        for (const toolCall of turn.toolCalls) {
          const ran = await runToolCall(host, toolCall, signal);
          // The place is gone (an offline machine): the model can do nothing about that.
          if ('unreachable' in ran) {
            // Interrupted while it waited for the machine: nothing was sent, the run was stopped.
            if (signal.aborted) return { status: 'interrupted', usage };
            return { status: 'error', error: unreachableNotice(host.context.place, ran.unreachable), usage };
          }
          results.push(ran);
        }
        history.push({ role: 'tool', results });
        if (signal.aborted) return { status: 'interrupted', usage };
        continue;
      }
      const queued = host.takeQueued();
      if (queued.length === 0) return { status: 'done', usage };
      for (const message of queued) {
        host.append(userMessageEvent(host.newId('m'), message));
        history.push(userChatMessage(message.text, message.attachments ?? [], chatAttachments(host)));
      }
    }
    host.append({
      type: 'notice',
      level: 'warning',
      text: `Stopped after ${limit} model calls in one run (the limit for this session); say go on, or send a message, to continue.`,
    });
    return { status: 'done', usage, limitReached: true };
  } catch (error) {
    if (error instanceof BudgetStop) {
      host.append({ type: 'notice', level: 'warning', text: error.text });
      return { status: 'done', usage, budgetReached: error.text };
    }
    if (signal.aborted || (error instanceof ProviderError && error.kind === 'aborted'))
      return { status: 'interrupted', usage };
    const message = error instanceof Error ? error.message : String(error);
    return { status: 'error', error: message, usage };
  }
}

async function modelTurn(
  host: RunHost,
  provider: ModelProvider,
  model: string,
  history: ChatMessage[],
  tools: ToolSpec[],
  maxTokens: number,
  usage: NonNullable<RunResult['usage']>,
): Promise<{ text: string; toolCalls: ToolCall[] }> {
  const { signal } = host;
  const messageId = host.newId('m');
  let text = '';
  const toolCalls: ToolCall[] = [];
  const deltas = new DeltaCoalescer(host.clock, (piece) =>
    host.append({ type: 'message.delta', messageId, text: piece }),
  );
  const finishText = () => {
    deltas.flush();
    if (text !== '') host.append({ type: 'message', messageId, role: 'assistant', text });
  };
  let ended = false;
  try {
    const stream = provider.stream({
      model,
      system: host.system,
      messages: history,
      tools,
      maxTokens,
      signal,
    });
    for await (const event of stream) {
      switch (event.type) {
        case 'text':
          text += event.text;
          deltas.push(event.text);
          break;
        case 'tool-call':
          toolCalls.push(event.call);
          break;
        case 'usage':
          usage.inputTokens += event.inputTokens;
          usage.outputTokens += event.outputTokens;
          break;
        case 'end':
          ended = true;
          if (event.stopReason === 'max-tokens' && toolCalls.length === 0) {
            host.append({
              type: 'notice',
              level: 'warning',
              text: 'The reply reached the output token limit and was cut off.',
            });
          }
          break;
      }
    }
  } finally {
    // Whatever streamed before an interrupt or an error stays in the transcript as a message.
    finishText();
  }
  if (!ended) throw new ProviderError('the model stream ended without finishing the turn', 'protocol');
  return { text, toolCalls };
}

function unreachableNotice(place: string, why: string): string {
  return `${place === 'local' ? 'this computer' : `the machine ${place}`} is not reachable: ${why}`;
}

/** The result for the model, or why the tool's place could not be reached (nothing for the model then). */
async function runToolCall(
  host: RunHost,
  call: ToolCall,
  signal: AbortSignal,
): Promise<ToolResultMessage | { unreachable: string }> {
  const tool = host.tools().find((t) => t.spec.name === call.name);
  let input: unknown = call.arguments;
  let parsedJson = true;
  try {
    input = call.arguments.trim() === '' ? {} : (JSON.parse(call.arguments) as unknown);
  } catch {
    parsedJson = false;
  }
  const parsed = tool?.parse(input) ?? fail('invalid-params', `There is no tool named ${call.name}.`);
  const title = tool && parsed.ok ? tool.title(parsed.value) : call.name;
  host.append({ type: 'tool.started', toolCallId: call.id, tool: call.name, title: title.slice(0, 1000), input });
  const outcome = await (async (): Promise<ToolOutcome> => {
    if (!tool) return { ok: false, output: `There is no tool named ${call.name}.` };
    if (!parsedJson) return { ok: false, output: `The arguments are not valid JSON: ${call.arguments.slice(0, 200)}` };
    if (!parsed.ok) return { ok: false, output: parsed.error.message };
    if (signal.aborted) return { ok: false, output: 'Not run: the run was interrupted.' };
    const context = { sessionId: host.record().id, cwd: host.record().cwd, exec: host.context, signal };
    const value = parsed.value;
    const check = await tool.approval(value, context);
    if ('refuse' in check) {
      return { ok: false, output: check.refuse, ...(check.unreachable ? { unreachable: true } : {}) };
    }
    if (check.need) {
      const gate = await askApproval(host, call, check.need, signal);
      if (gate) return gate;
    }
    try {
      return await tool.run(value, context);
    } catch (error) {
      return { ok: false, output: `The tool failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  })();
  const output = eventOutput(outcome.output);
  host.append({
    type: 'tool.finished',
    toolCallId: call.id,
    tool: call.name,
    ok: outcome.ok,
    output,
    truncated: (outcome.truncated ?? false) || output !== outcome.output,
    ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
  });
  if (outcome.ok && outcome.change) host.append(fileChangedEvent(call.id, outcome.change));
  if (outcome.unreachable) return { unreachable: outcome.output };
  return { toolCallId: call.id, name: call.name, output, isError: !outcome.ok };
}

/** Asks the approval gate. Returns an outcome for the model when the action may not run. */
async function askApproval(
  host: RunHost,
  call: ToolCall,
  need: ApprovalNeed,
  signal: AbortSignal,
): Promise<ToolOutcome | undefined> {
  const answer = await host.gate.ask({ toolCallId: call.id, tool: call.name, need, place: host.context.place }, signal);
  if (answer.allowed) return undefined;
  if (answer.reason === 'cancelled')
    return { ok: false, output: 'Not run: the approval was cancelled because the run was interrupted.' };
  if (need.kind === 'plan') return { ok: false, output: planRefused(answer.note) };
  const note = answer.note ? ` Their note: ${answer.note}` : '';
  return { ok: false, output: `The person denied this action.${note}` };
}
