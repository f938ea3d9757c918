import type { SessionEvent } from '@tether/shared-protocol';
import { skillTool } from '../../tools/skill-tool.js';
import { eventOutput } from '../../tools/tool.js';
import type { Skill } from '../../tools/skills.js';
import type { RunContext } from '../session-backend.js';
import { parseCommand } from '../slash-commands.js';

/**
 * A message that names a skill (`/review-pr 12`) asks for that skill: before the model's turn the
 * loop loads the skill's instructions for it, as a `skill` tool call of its own, logged like any
 * other call, so the history rebuilt from the log is what the model saw. The message itself stays
 * as the person typed it; the words after the name are for the model to read there. True when
 * it loaded one.
 */
export async function preloadSkill(
  run: RunContext,
  skills: readonly Skill[],
  events: readonly SessionEvent[],
): Promise<boolean> {
  const text = newUserMessage(events);
  const typed = text === undefined ? undefined : parseCommand(text);
  const skill = typed && skills.find((s) => s.name === typed.name);
  if (!skill) return false;
  const record = run.record();
  const toolCallId = run.newId('t');
  const input = { name: skill.name };
  run.append({ type: 'tool.started', toolCallId, tool: 'skill', title: skill.name, input });
  const outcome = await skillTool(skills).run(input, {
    sessionId: run.sessionId,
    cwd: record.cwd,
    exec: run.context,
    signal: run.signal,
  });
  const output = eventOutput(outcome.output);
  run.append({
    type: 'tool.finished',
    toolCallId,
    tool: 'skill',
    ok: outcome.ok,
    output,
    truncated: output !== outcome.output,
  });
  return true;
}

/** The text of the person's newest message of the run about to start (after the last run ended). */
function newUserMessage(events: readonly SessionEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'run.finished') return undefined;
    if (event.type === 'message' && event.role === 'user') return event.text;
  }
  return undefined;
}
