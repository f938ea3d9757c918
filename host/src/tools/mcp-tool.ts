import { MAX_ACTION_TEXT, fail, ok } from '@tether/shared-protocol';
import type { McpTool } from '../mcp/types.js';
import type { AnyTool, Tool } from './tool.js';
import { asAnyTool } from './tool.js';

/**
 * An MCP server's tool as an agent tool. It needs approval unless its server is marked trusted;
 * the approval shows the tool and its complete arguments.
 */
export function mcpAgentTool(mcp: McpTool): AnyTool {
  const tool: Tool<Record<string, unknown>> = {
    spec: mcp.spec,
    parse: (input) =>
      typeof input === 'object' && input !== null && !Array.isArray(input)
        ? ok(input as Record<string, unknown>)
        : fail('invalid-params', 'invalid arguments: expected a JSON object'),
    title: (input) => `${mcp.server}: ${mcp.tool} ${JSON.stringify(input)}`.slice(0, 200),
    approval: (input) => {
      if (mcp.trusted) return Promise.resolve({ need: null });
      const action = `${mcp.server} → ${mcp.tool}\n${JSON.stringify(input, null, 2)}`;
      if (action.length > MAX_ACTION_TEXT) {
        return Promise.resolve({ refuse: 'the arguments are too large to show for approval' });
      }
      return Promise.resolve({ need: { kind: 'mcp', action } });
    },
    run: async (input, context) => {
      const result = await mcp.call(input, context.signal);
      return { ok: !result.isError, output: result.output };
    },
  };
  return asAnyTool(tool);
}
