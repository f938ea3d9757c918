import type { ToolSpec } from '../models/types.js';

/** What an MCP tool call returns to the agent loop. */
export interface McpCallResult {
  /** Text for the model: text content joined; other content summarised (e.g. "[image: image/png]"). */
  output: string;
  isError: boolean;
}

/** One tool offered by a configured MCP server, named `mcp__<server>__<tool>`. */
export interface McpTool {
  spec: ToolSpec;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  /** From the server's config entry (`"trusted": true`): its tools run without approval. */
  trusted: boolean;
  call(args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult>;
}

export type McpServerState = 'starting' | 'running' | 'failed' | 'closed';

export interface McpServerStatus {
  name: string;
  state: McpServerState;
  transport: 'stdio' | 'http';
  tools: number;
  /** Why it failed or stopped, for a notice. */
  error?: string;
}

export type McpNotice = { level: 'warning' | 'error' | 'info'; text: string };
