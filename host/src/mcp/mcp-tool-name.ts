/**
 * The name the model sees for an MCP tool: `mcp__<server>__<tool>`. Model APIs accept tool names
 * of `[A-Za-z0-9_-]` up to 64 characters (Anthropic and OpenAI both), so anything else becomes
 * `_` and the name is cut; a cut or clash gets a `_2`, `_3`, … suffix to stay unique.
 */
export const MAX_TOOL_NAME_CHARS = 64;

export const MCP_TOOL_PREFIX = 'mcp__';

/**
 * A unique name for `tool` of `server`, given the names already `taken` (which the caller adds the
 * result to). Deterministic: the same servers and tools in the same order get the same names.
 */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const base = `${MCP_TOOL_PREFIX}${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_TOOL_NAME_CHARS);
  if (!taken.has(base)) return base;
  // Terminates: at most taken.size suffixes can clash.
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const name = `${base.slice(0, MAX_TOOL_NAME_CHARS - suffix.length)}${suffix}`;
    if (!taken.has(name)) return name;
  }
}
