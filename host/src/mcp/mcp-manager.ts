/**
 * Every configured MCP server for one host: started together, their tools offered to the agent
 * loop as `mcp__<server>__<tool>`, each server isolated from the others' failures, and all of
 * them (child processes included) ended by `close()`.
 */
import type { McpConfig } from './mcp-config.js';
import { McpServerConnection } from './mcp-server-connection.js';
import { mcpToolName } from './mcp-tool-name.js';
import type { McpNotice, McpServerStatus, McpTool } from './types.js';

export interface McpManagerOptions {
  /** Failures (once per server, with the tail of its stderr) and warnings, for the user to see. */
  onNotice: (notice: McpNotice) => void;
  /** Milliseconds per server to connect, initialize and list tools. Default 20 s (npx may download). */
  startTimeoutMs?: number;
  /**
   * Milliseconds per tool call. Default 5 min: MCP tools run builds and searches. The agent's
   * abort signal ends a call sooner.
   */
  callTimeoutMs?: number;
  /** Sent to servers in `initialize` as clientInfo. */
  clientName?: string;
  clientVersion?: string;
}

export const DEFAULT_MCP_START_TIMEOUT_MS = 20_000;
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 5 * 60_000;

interface NamedTool {
  tool: McpTool;
  connection: McpServerConnection;
}

export class McpManager {
  private constructor(
    private readonly connections: readonly McpServerConnection[],
    private readonly named: readonly NamedTool[],
  ) {}

  /**
   * Starts every server concurrently and resolves once each is running or failed (each within
   * its start timeout). Never rejects: a server that cannot start is reported through
   * `onNotice` and `status()`, and the others work without it.
   */
  static async start(config: McpConfig, options: McpManagerOptions): Promise<McpManager> {
    const connectionOptions = {
      startTimeoutMs: options.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS,
      callTimeoutMs: options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
      clientName: options.clientName ?? 'tether',
      clientVersion: options.clientVersion ?? '0.1.0',
      onNotice: options.onNotice,
    };
    const connections = config.servers.map(
      ({ name, config: server }) => new McpServerConnection(name, server, connectionOptions),
    );
    await Promise.all(connections.map((connection) => connection.start()));

    // Named once every server has settled, in config order, so a name never depends on which
    // server answered first; names stay fixed for the session.
    const taken = new Set<string>();
    const named: NamedTool[] = [];
    for (const connection of connections) {
      for (const serverTool of connection.tools) {
        const name = mcpToolName(connection.name, serverTool.name, taken);
        taken.add(name);
        const tool: McpTool = {
          spec: {
            name,
            description: serverTool.description || `Tool '${serverTool.name}' of MCP server '${connection.name}'`,
            inputSchema: serverTool.inputSchema,
          },
          server: connection.name,
          tool: serverTool.name,
          trusted: connection.config.trusted,
          call: (args, signal) => connection.call(serverTool.name, args, signal),
        };
        named.push({ tool, connection });
      }
    }
    return new McpManager(connections, named);
  }

  /** The tools of servers that are running now; a server that fails later drops out. */
  tools(): McpTool[] {
    return this.named.filter(({ connection }) => connection.state === 'running').map(({ tool }) => tool);
  }

  /** One entry per configured server, in config order. */
  status(): McpServerStatus[] {
    return this.connections.map((connection) => ({
      name: connection.name,
      state: connection.state,
      transport: connection.config.transport,
      tools: connection.tools.length,
      ...(connection.error !== undefined ? { error: connection.error } : {}),
    }));
  }

  /** Ends every server; resolves once every child process is gone. Safe to call twice. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }
}
