import type { Choice } from '@tether/shared-protocol';
import * as v from 'valibot';
import { parseInput } from '../../tools/parse-input.js';
import type { AnyTool, Tool } from '../../tools/tool.js';
import { asAnyTool } from '../../tools/tool.js';

/**
 * The own loop's modes. In `plan` a run has only the tools that change nothing (reading, listing
 * and searching files, loading skills) and `propose_plan`, which asks the person to accept the
 * plan as an approval that auto-approve and session rules never answer. Accepted, the session
 * leaves plan mode and the same run goes on with its normal tools; not accepted, the model is
 * told why and stays in plan mode.
 */
export const OWN_MODES: readonly Choice[] = [
  {
    id: 'default',
    name: 'Default',
    description: 'Reads freely; asks before each command or change, unless allowed for the session.',
  },
  {
    id: 'plan',
    name: 'Plan',
    description: 'Only tools that change nothing, then a plan for you to accept; after that, its normal tools.',
  },
];

export const PLAN_TOOL = 'propose_plan';
/** Characters of a plan: a long one is still a page or two. */
const MAX_PLAN = 64 * 1024;
/** Tools a run in plan mode keeps: they only read. MCP tools are not among them (nothing says they only read). */
const READ_ONLY_TOOLS = new Set(['read_file', 'list_dir', 'search', 'skill']);

/** What the system prompt says of plan mode, for a run that starts in it. */
export const PLAN_PROMPT = [
  'This session is in plan mode: you have only tools that change nothing, and `propose_plan`.',
  'Investigate what you need, then call `propose_plan` with your plan in Markdown (what you will change, where and how, step by step).',
  'The person accepts it or says what to change. Once accepted, the other tools are offered and you carry the plan out.',
].join(' ');

const PlanInput = v.object({ plan: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_PLAN)) });

/** `propose_plan`: the plan, asked of the person; `accepted` is called once they accept it. */
export function proposePlanTool(accepted: () => void): Tool<v.InferOutput<typeof PlanInput>> {
  return {
    spec: {
      name: PLAN_TOOL,
      description:
        'Propose your plan to the person, in Markdown. They accept it (then your other tools are offered and you carry it out) or say what to change.',
      inputSchema: {
        type: 'object',
        properties: { plan: { type: 'string', description: 'The plan, in Markdown.' } },
        required: ['plan'],
      },
    },
    parse: (input) => parseInput(PlanInput, input),
    title: (input) => `plan: ${input.plan.trim().split('\n')[0]?.slice(0, 200) ?? ''}`,
    approval: (input) => Promise.resolve({ need: { kind: 'plan', action: input.plan } }),
    run: () => {
      accepted();
      return Promise.resolve({
        ok: true,
        output:
          'The person accepted the plan. The session has left plan mode and your other tools are offered: carry the plan out now.',
      });
    },
  };
}

/** The tools of a run in plan mode: the ones that only read, and `propose_plan`. */
export function planTools(tools: readonly AnyTool[], accepted: () => void): AnyTool[] {
  return [...tools.filter((t) => READ_ONLY_TOOLS.has(t.spec.name)), asAnyTool(proposePlanTool(accepted))];
}

/** What the model is told when the person did not accept its plan. */
export function planRefused(note: string | undefined): string {
  return `The person did not accept the plan.${note ? ` Their note: ${note}` : ''} You are still in plan mode: revise the plan and propose it again.`;
}
