import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { SessionEventBody, ToolLocation } from '@tether/shared-protocol';
import { MAX_TOOL_DIFF_EVENT, MAX_TOOL_LOCATIONS } from '@tether/shared-protocol';
import { displayPath } from '@tether/machine';
import { blockText, cut, rawOutputText } from './acp-content-text.js';
import { agentDiff } from './acp-diff.js';

/** The optional fields tool events carry for an agent's tool call. */
export type ToolDetails = Pick<
  Extract<SessionEventBody, { type: 'tool.started' }>,
  'kind' | 'locations' | 'diff' | 'diffTruncated'
>;

/** What the agent has said about one tool call so far, its fields merged update by update. */
export interface ToolState {
  /** Tether's id for it (the agent's ids are the agent's text: never trusted as ours). */
  id: string;
  acpId: string;
  tool: string;
  title: string;
  kind: ToolKind | undefined;
  rawInput: unknown;
  /** What the agent reported it returned: the output when its content has no text. */
  rawOutput: unknown;
  content: ToolCallContent[];
  /**
   * The agent's own words about the call from a permission request (its text content): why it
   * asks, shown in the approval. Never taken for the call's output.
   */
  asked: string[];
  locations: ToolCallLocation[];
  finished: boolean;
}

/** The optional fields of a tool event: kind, files and diff (paths shown inside `cwd`), as far as known. */
export function toolDetails(state: ToolState, cwd: string): ToolDetails {
  const out: ToolDetails = {};
  if (state.kind) out.kind = state.kind;
  const locations = state.locations.flatMap((l): ToolLocation[] =>
    typeof l.path === 'string' && l.path !== '' && l.path.length <= 4096
      ? [
          {
            path: l.path,
            ...(typeof l.line === 'number' && Number.isInteger(l.line) && l.line >= 0 ? { line: l.line } : {}),
          },
        ]
      : [],
  );
  if (locations.length > 0) out.locations = locations.slice(0, MAX_TOOL_LOCATIONS);
  const diff = toolDiff(state, cwd);
  if (diff !== '') {
    out.diff = cut(diff, MAX_TOOL_DIFF_EVENT);
    if (diff.length > MAX_TOOL_DIFF_EVENT) out.diffTruncated = true;
  }
  return out;
}

/**
 * The call's diffs, as unified diffs with paths shown inside the session folder, as far as an
 * event carries them: past MAX_TOOL_DIFF_EVENT the rest would be cut anyway, and an agent's
 * message may hold a hundred thousand diffs, each diffed again on every update that changes them.
 */
export function toolDiff(state: ToolState, cwd: string): string {
  let out = '';
  for (const item of state.content) {
    if (item.type !== 'diff') continue;
    out += agentDiff(item.oldText ?? '', item.newText, displayPath(cwd, item.path));
    if (out.length > MAX_TOOL_DIFF_EVENT) break;
  }
  return out;
}

/**
 * What the call printed: its text content (text blocks, and the output of any terminal it
 * shows), else what its `rawOutput` holds (Codex puts a command's stdout, stderr and exit code
 * there and no content).
 */
export function toolOutput(state: ToolState, terminalOutput: (terminalId: string) => string | undefined): string {
  const content = state.content
    .flatMap((item) => {
      if (item.type === 'content') return [blockText(item.content)];
      if (item.type === 'terminal') return [terminalOutput(item.terminalId) ?? ''];
      return [];
    })
    .filter((text) => text !== '')
    .join('\n');
  return content !== '' ? content : rawOutputText(state.rawOutput);
}
