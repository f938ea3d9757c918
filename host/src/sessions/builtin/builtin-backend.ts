import type { Result } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import type { ModelProvider } from '../../models/types.js';
import type { EventLog } from '../../store/event-log.js';
import type { AnyTool } from '../../tools/tool.js';
import { runAgent } from './agent-run.js';
import { chatAttachments } from './chat-attachments.js';
import { buildHistory } from './history.js';
import { loadInstructions, repositoryRoot } from './project-instructions.js';
import { skillTool } from '../../tools/skill-tool.js';
import type { Skill } from '../../tools/skills.js';
import { discoverSkills, skillsPrompt } from '../../tools/skills.js';
import { asAnyTool } from '../../tools/tool.js';
import type { PriceBook } from '../../models/prices.js';
import { costOf } from '../../models/prices.js';
import type { SteeringStore } from '../../store/steering-store.js';
import type { BackendSteering, RunContext, RunResult, SessionBackend } from '../session-backend.js';
import { allowedOutput } from '../spend-guard.js';
import type { BuiltinSteeringDeps } from './builtin-steering.js';
import { builtinSteering } from './builtin-steering.js';
import { compactNow } from './compact-now.js';
import { OWN_MODES, PLAN_PROMPT, planTools } from './plan-mode.js';
import { preloadSkill } from './skill-command.js';
import { systemPrompt } from './system-prompt.js';
import type { FolderTrust, TrustOutcome } from '../trust/folder-trust.js';

/** Resolves a model spec to a provider ready to stream (with retries that post notices). */
export type ProviderFactory = (
  spec: string,
  onNotice: (text: string) => void,
) => Result<{
  provider: ModelProvider;
  model: string;
  /** Tokens; the default window when absent. */
  contextWindow?: number;
}>;

export interface BuiltinBackendDeps {
  log: EventLog;
  providers: ProviderFactory;
  tools: () => readonly AnyTool[];
  /** The host's own instructions file (`<data-dir>/AGENTS.md`), added after the project's. */
  hostInstructions?: string;
  /** What the session's plugins add to a run (plugin-runtime.ts): skills, tools, notices. */
  plugins?: (input: {
    context: RunContext['context'];
    root: string;
    trusted: boolean;
    place: string;
    skillNames: readonly string[];
  }) => Promise<{ skills: readonly Skill[]; tools: readonly AnyTool[]; notices: readonly string[] }>;
  /** Whether the repository's own skills and plugins may load: without it, they never do. */
  trust?: FolderTrust;
  /** Each session's mode (plan mode), kept apart from its record. */
  steering?: Pick<SteeringStore, 'get' | 'setMode'>;
  /** What models cost (prices.ts): without, no cost is counted. */
  prices?: PriceBook;
  /** What `sessions.controls` needs beyond the above: the offered models, the places. */
  controls?: Omit<BuiltinSteeringDeps, 'check' | 'steering' | 'prices'>;
}

/** Sessions whose last instruction notices are remembered, so an unchanged problem is said once. */
const NOTICES_KEPT = 1024;

/** Tether's own agent loop: a model over the Anthropic or OpenAI SDKs, with tools. */
export class BuiltinBackend implements SessionBackend {
  /** Per session, the instruction notices its last run gave (bounded by NOTICES_KEPT; forgetting repeats one notice). */
  private readonly lastNotices = new Map<string, string>();

  readonly steering: BackendSteering | undefined;

  constructor(private readonly deps: BuiltinBackendDeps) {
    this.steering =
      deps.steering && deps.controls
        ? builtinSteering({
            ...deps.controls,
            check: (model) => this.check(model),
            steering: deps.steering,
            ...(deps.prices ? { prices: deps.prices } : {}),
          })
        : undefined;
  }

  check(model: string): Result<void> {
    const provider = this.deps.providers(model, () => undefined);
    return provider.ok ? ok(undefined) : provider;
  }

  async run(run: RunContext): Promise<RunResult> {
    const record = run.record();
    const resolved = this.deps.providers(record.model, (text) =>
      run.append({ type: 'notice', level: 'warning', text }),
    );
    if (!resolved.ok) {
      return { status: 'error', error: resolved.error.message, usage: { inputTokens: 0, outputTokens: 0 } };
    }
    const root = await repositoryRoot(run.context, record.cwd);
    const trust: TrustOutcome = this.deps.trust ? await this.deps.trust.decide(run, 'tether') : { trusted: false };
    if (trust.cancelled) return { status: 'interrupted' };
    // A fresh "yes" is said once; a "no" stands among the notices said again only when they change.
    if (trust.fresh && trust.trusted && trust.notice !== undefined)
      run.append({ type: 'notice', level: 'info', text: trust.notice });
    const instructions = await loadInstructions({
      context: run.context,
      cwd: record.cwd,
      root,
      hostFile: this.deps.hostInstructions,
    });
    const skills = await discoverSkills(run.context, trust.trusted ? root : undefined, run.context.home);
    const plugins = await this.deps.plugins?.({
      context: run.context,
      root,
      trusted: trust.trusted,
      place: record.place,
      skillNames: skills.skills.map((s) => s.name),
    });
    const allSkills = [...skills.skills, ...(plugins?.skills ?? [])];
    const pluginTools = plugins?.tools ?? [];
    const events = [...this.deps.log.readAll(run.sessionId)];
    const preloaded = !run.command && (await preloadSkill(run, allSkills, events));
    // The model's history is rebuilt from the log for every run: the log is the source of truth.
    const history = buildHistory(preloaded ? this.deps.log.readAll(run.sessionId) : events, chatAttachments(run));
    run.progress?.({ instructions: instructions.files });
    this.notify(run, [
      ...(!trust.trusted && trust.notice !== undefined ? [trust.notice] : []),
      ...instructions.notices,
      ...skills.skipped.map((s) => `The skill in ${s.folder} was skipped: ${s.why}.`),
      ...(plugins?.notices ?? []),
    ]);
    const allTools =
      allSkills.length === 0 && pluginTools.length === 0
        ? this.deps.tools
        : () => [
            ...this.deps.tools(),
            ...pluginTools,
            ...(allSkills.length === 0 ? [] : [asAnyTool(skillTool(allSkills))]),
          ];
    const planMode = () => this.deps.steering?.get(run.sessionId).mode?.id === 'plan';
    const accepted = () => this.leavePlanMode(run);
    // Read at each model call: accepting the plan mid-run gives the rest of the run its normal tools.
    const tools = () => (planMode() ? planTools(allTools(), accepted) : allTools());
    const system = systemPrompt({
      cwd: record.cwd,
      place: record.place,
      date: new Date(run.clock.now()).toDateString(),
      instructions: [planMode() ? PLAN_PROMPT : '', skillsPrompt(allSkills), instructions.prompt]
        .filter(Boolean)
        .join('\n\n'),
    });
    const { provider, model, contextWindow } = resolved.value;
    const price = this.deps.prices?.priceOf(model);
    const host = {
      ...run,
      tools,
      system,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(run.spend
        ? {
            allowOutput: (inputTokens: number, maxOutput: number) =>
              allowedOutput(run.spend!(), price, { inputTokens, maxOutput, model }),
          }
        : {}),
      costOf: (inputTokens: number, outputTokens: number) =>
        price ? { costUsd: costOf(price, inputTokens, outputTokens) } : ({ unpriced: true } as const),
    };
    if (run.command?.name === 'compact') return compactNow(host, provider, model, history, run.command.focus);
    return runAgent(host, provider, model, history);
  }

  /** The person accepted the plan: the session leaves plan mode, and every device hears of it. */
  private leavePlanMode(run: RunContext): void {
    const mode = OWN_MODES.find((m) => m.id === 'default')!;
    this.deps.steering?.setMode(run.sessionId, { id: mode.id, name: mode.name });
    run.append({ type: 'notice', level: 'info', text: 'Plan accepted: the session left plan mode.' });
    run.announce?.();
  }

  /** Says in the transcript which instruction files were cut or left out, when that changed since the last run. */
  private notify(run: RunContext, notices: string[]): void {
    const key = notices.join('\n');
    if ((this.lastNotices.get(run.sessionId) ?? '') === key) return;
    if (this.lastNotices.size >= NOTICES_KEPT) this.lastNotices.clear();
    this.lastNotices.set(run.sessionId, key);
    for (const text of notices) run.append({ type: 'notice', level: 'warning', text });
  }
}
