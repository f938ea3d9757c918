import type { ChoiceRef, Result, SessionBudget, SessionControls } from '@tether/shared-protocol';
import { MAX_SESSION_COMMANDS, fail, ok } from '@tether/shared-protocol';
import type { ExecutionContext } from '@tether/machine';
import { parseModelSpec } from '../../models/model-spec.js';
import type { PriceBook } from '../../models/prices.js';
import type { SessionRecord } from '../../store/session-store.js';
import type { Steering } from '../../store/steering-store.js';
import { discoverSkills } from '../../tools/skills.js';
import type { BackendSteering } from '../session-backend.js';
import { OWN_COMMANDS } from '../slash-commands.js';
import { repositoryRoot } from './project-instructions.js';
import { OWN_MODES } from './plan-mode.js';

export interface BuiltinSteeringDeps {
  /** Models a session may switch to: the host's offered ones. */
  models: () => readonly string[];
  /** Whether a model can be run here (its provider, its key): the back-end's own check. */
  check: (model: string) => Result<void>;
  steering: { get(sessionId: string): Steering };
  prices?: PriceBook;
  /** Where a session's skills are looked for (its place); undefined when the place is not known. */
  contexts?: (place: string) => ExecutionContext | undefined;
  /** The activity's count of unpriced calls, for a budget in dollars. */
  unpricedCalls?: (sessionId: string) => number;
}

/** The provider's own name for a model spec (`claude-sonnet-4-5` for `anthropic:claude-sonnet-4-5`). */
export function providerModel(spec: string): string {
  const parsed = parseModelSpec(spec);
  return parsed.ok ? parsed.value.model : spec;
}

/**
 * The own loop's commands (its own, then each skill the session folder has), its two modes, and
 * the host's offered models: what `sessions.controls` answers for it, and the checks behind
 * switching them.
 */
export function builtinSteering(deps: BuiltinSteeringDeps): BackendSteering {
  return {
    async controls(record: SessionRecord): Promise<SessionControls> {
      const context = deps.contexts?.(record.place);
      let note: string | undefined;
      const skills = [];
      if (context) {
        const root = await repositoryRoot(context, record.cwd);
        const found = await discoverSkills(context, root, context.home);
        skills.push(...found.skills);
      } else note = `The machine ${record.place} is not known here: its skills are not listed.`;
      const price = deps.prices?.priceOf(providerModel(record.model));
      const models = [...new Set([record.model, ...deps.models()])];
      return {
        commands: [
          ...OWN_COMMANDS,
          ...skills.map((s) => ({
            name: s.name,
            description: s.description.replace(/\s+/g, ' ').slice(0, 500),
            hint: '[what for]',
            source: 'skill' as const,
          })),
        ].slice(0, MAX_SESSION_COMMANDS),
        modes: [...OWN_MODES],
        mode: deps.steering.get(record.id).mode?.id ?? 'default',
        models: models.map((id) => ({ id, name: id })),
        model: record.model,
        ...(price ? { price } : {}),
        ...(note ? { note } : {}),
      };
    },
    setMode(_record: SessionRecord, mode: string): Promise<Result<ChoiceRef>> {
      const found = OWN_MODES.find((m) => m.id === mode);
      return Promise.resolve(
        found
          ? ok({ id: found.id, name: found.name })
          : fail('invalid-params', `no mode ${mode}: choose ${OWN_MODES.map((m) => m.id).join(' or ')}`),
      );
    },
    setModel(record: SessionRecord, model: string): Promise<Result<ChoiceRef>> {
      const offered = deps.models();
      if (model !== record.model && !offered.includes(model)) {
        return Promise.resolve(
          fail('invalid-params', `model ${model} is not offered by this host; choose one of ${offered.join(', ')}`),
        );
      }
      if (deps.steering.get(record.id).budget?.usd !== undefined && !deps.prices?.priceOf(providerModel(model))) {
        return Promise.resolve(
          fail(
            'invalid-params',
            `this session's budget is in dollars, and no price is known for ${providerModel(model)}`,
          ),
        );
      }
      const checked = deps.check(model);
      return Promise.resolve(checked.ok ? ok({ id: model, name: model }) : checked);
    },
    budgetProblem(record: Pick<SessionRecord, 'id' | 'model'>, budget: SessionBudget): string | undefined {
      if (budget.usd === undefined) return undefined;
      if (!deps.prices?.priceOf(providerModel(record.model))) {
        return `no price is known for ${providerModel(record.model)}: set one in prices.json, or set a budget in tokens`;
      }
      const unpriced = deps.unpricedCalls?.(record.id) ?? 0;
      return unpriced > 0
        ? `${unpriced} model calls of this session had no known price, so what it spent in dollars is not known: set a budget in tokens`
        : undefined;
    },
  };
}
