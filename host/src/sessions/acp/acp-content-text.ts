import type { ContentBlock } from '@agentclientprotocol/sdk';
import { MAX_TOOL_OUTPUT_EVENT } from '@tether/shared-protocol';

/**
 * Characters of a tool call's input (as JSON) carried in an event: 64 KiB, like its output. An
 * agent's input can be as large as its message (8 MiB), which no sealed frame holds; a larger one
 * is carried as a cut preview.
 */
export const MAX_TOOL_INPUT_EVENT = 64 * 1024;

/** A content block as transcript text: text itself, other kinds as a bracketed mention. */
export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}]`;
    case 'audio':
      return `[audio ${block.mimeType}]`;
    case 'resource_link':
      return `[${block.name}](${block.uri})`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[${block.resource.uri}]`;
    default:
      return '';
  }
}

/**
 * A tool call's `rawOutput` as text: a string as it is; content blocks as their text; a command's
 * result (`stdout`, `stderr`, `exit_code`, as Codex reports it) as what it printed, stdout and
 * stderr as one stream where the agent kept them so (`aggregated_output`, else the two, else
 * `formatted_output`), and the exit code when it is not 0; anything else as JSON, bounded like the
 * output.
 */
export function rawOutputText(raw: unknown): string {
  if (raw === undefined || raw === null) return '';
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw)) {
    if (raw.every((b) => typeof b === 'object' && b !== null && typeof (b as { type?: unknown }).type === 'string')) {
      return (raw as ContentBlock[]).map(blockText).join('');
    }
  } else if (typeof raw === 'object') {
    const o = raw as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    if ('stdout' in o || 'stderr' in o || 'aggregated_output' in o || 'exit_code' in o) {
      // Codex can end a command with some of these empty and the output in another (its end made
      // before the output was read): the first that holds any text.
      const printed =
        [
          text(o.aggregated_output),
          [text(o.stdout), text(o.stderr)].filter((t) => t !== '').join('\n'),
          text(o.formatted_output),
        ].find((t) => t !== '') ?? '';
      const code = rawExitCode(raw);
      return code !== undefined && code !== 0
        ? `${printed}${printed === '' || printed.endsWith('\n') ? '' : '\n'}exit code ${code}`
        : printed;
    }
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(raw, null, 2);
  } catch {
    json = undefined;
  }
  return cut(json ?? '', MAX_TOOL_OUTPUT_EVENT + 1);
}

/** The exit code a `rawOutput` reports (`exit_code`, `exitCode`), if it is a whole number. */
export function rawExitCode(raw: unknown): number | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const o = raw as { exit_code?: unknown; exitCode?: unknown };
  const code = o.exit_code ?? o.exitCode;
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
}

/** The `tool` of Tether's events for an agent's tool call: its name, else its kind. */
export function toolName(name: string | undefined, kind: string | undefined): string {
  const raw = (name ?? kind ?? 'tool').replace(/[^\w.:-]+/g, '_').slice(0, 64);
  return raw === '' ? 'tool' : raw;
}

/** The input as it is when small enough; else `{truncated: true, preview}`, its JSON cut. */
export function boundedInput(input: unknown): unknown {
  let json: string;
  try {
    json = JSON.stringify(input) ?? '';
  } catch {
    return { truncated: true, preview: '' };
  }
  return json.length <= MAX_TOOL_INPUT_EVENT ? input : { truncated: true, preview: cut(json, MAX_TOOL_INPUT_EVENT) };
}

export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
