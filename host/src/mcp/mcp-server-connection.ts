/**
 * One configured MCP server: its SDK client, its transport (a child process over stdio, or a
 * streamable HTTP endpoint) and its life: starting → running → failed | closed. A failure is
 * contained here: it becomes a state, one notice and error values for later calls, never an
 * exception out of this class.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { toMcpCallResult } from './mcp-call-result.js';
import type { McpServerConfig } from './mcp-config.js';
import { originPinnedFetch } from './remote-fetch.js';
import { StderrTail } from './stderr-tail.js';
import type { McpCallResult, McpNotice, McpServerState } from './types.js';

/** A tool as its server describes it, before it is given its `mcp__` name. */
export interface ServerTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface McpServerConnectionOptions {
  /** Milliseconds for the whole start: spawn or connect, `initialize` and the tool listing. */
  startTimeoutMs: number;
  /** Milliseconds one tool call may take before it is an error value. */
  callTimeoutMs: number;
  clientName: string;
  clientVersion: string;
  onNotice: (notice: McpNotice) => void;
}

/** Tools kept per server; past this the list is cut with a warning (a model cannot use more). */
export const MAX_TOOLS_PER_SERVER = 500;
/** Pages of `tools/list` read at most, so a server whose cursor never ends cannot hang the start. */
const MAX_LIST_PAGES = 50;
/** Milliseconds given to an HTTP session's DELETE on close; the connection is dropped after it. */
const SESSION_END_MS = 1_000;

export class McpServerConnection {
  private stateValue: McpServerState = 'starting';
  private toolsValue: readonly ServerTool[] = [];
  private errorValue: string | undefined;
  /** Settles once the transport is closed and a child process has ended. */
  private closing: Promise<void> | undefined;
  private readonly client: Client;
  private readonly transport: PidKeepingStdioTransport | StreamableHTTPClientTransport;
  private readonly stderr = new StderrTail();

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: McpServerConnectionOptions,
  ) {
    this.client = new Client({ name: options.clientName, version: options.clientVersion });
    this.transport = createTransport(config);
    // The SDK hands out the stderr stream before the spawn, so no early line is lost.
    if (this.transport instanceof PidKeepingStdioTransport) {
      this.transport.stderr?.on('data', (chunk: Uint8Array | string) => this.stderr.push(chunk));
    }
    this.client.onclose = () => this.transportClosed();
  }

  get state(): McpServerState {
    return this.stateValue;
  }

  /** Empty unless running. */
  get tools(): readonly ServerTool[] {
    return this.toolsValue;
  }

  /** Why it failed, e.g. `failed to start: …` or `stopped: its process exited`. */
  get error(): string | undefined {
    return this.errorValue;
  }

  /** Connects and lists the tools. Never throws; settles within about `startTimeoutMs`. */
  async start(): Promise<void> {
    const ms = this.options.startTimeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`no answer within ${ms} ms`)), ms);
    try {
      await this.client.connect(this.transport, { signal: deadline.signal, timeout: ms });
      const tools = await this.listTools({ signal: deadline.signal, timeout: ms });
      if (this.stateValue !== 'starting') return; // closed meanwhile
      this.toolsValue = tools;
      this.stateValue = 'running';
    } catch (error) {
      if (this.stateValue !== 'starting') return;
      const closed = error instanceof McpError && error.code === Number(ErrorCode.ConnectionClosed);
      const detail = deadline.signal.aborted
        ? `no answer within ${ms} ms`
        : closed && this.config.transport === 'stdio'
          ? 'its process exited'
          : describeError(error);
      await this.fail(`failed to start: ${detail}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Calls `tool` on this server. Every failure is an `isError` value, never a throw. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    if (this.stateValue !== 'running') return this.notRunning();
    const ms = this.options.callTimeoutMs;
    try {
      const raw = await this.client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: ms });
      return toMcpCallResult(raw);
    } catch (error) {
      if (signal.aborted) {
        return { isError: true, output: `The call to '${tool}' on MCP server '${this.name}' was cancelled` };
      }
      // The server died during the call: say so rather than "Connection closed".
      if (this.stateValue !== 'running') return this.notRunning();
      if (error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout)) {
        return { isError: true, output: `MCP server '${this.name}' did not answer '${tool}' within ${ms} ms` };
      }
      return { isError: true, output: `MCP server '${this.name}' failed to run '${tool}': ${describeError(error)}` };
    }
  }

  /** Closes the client and ends the child process (stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    if (this.stateValue !== 'closed') {
      this.stateValue = 'closed';
      this.toolsValue = [];
      this.closing ??= this.closeTransport();
    }
    await this.closing;
  }

  private transportClosed(): void {
    // While starting, start() reports the failure with its own context; after close(), nothing.
    if (this.stateValue !== 'running') return;
    void this.fail(
      this.config.transport === 'stdio' ? 'stopped: its process exited' : 'stopped: the connection closed',
    );
  }

  /** Runs at most once per connection: the state changes synchronously, the notice follows. */
  private async fail(error: string): Promise<void> {
    if (this.stateValue === 'failed' || this.stateValue === 'closed') return;
    this.stateValue = 'failed';
    this.toolsValue = [];
    this.errorValue = error;
    this.closing ??= this.closeTransport();
    // The last stderr chunks pass through a pipe; give them a turn to arrive before quoting them.
    await nextTurn();
    const tail = this.stderr.text();
    const text =
      `MCP server '${this.name}' ${error}. Its tools are unavailable until tether restarts.` +
      (tail === '' ? '' : `\nIts stderr ended with:\n${tail}`);
    this.options.onNotice({ level: 'error', text });
  }

  private notRunning(): McpCallResult {
    const why =
      this.stateValue === 'closed'
        ? 'it was shut down'
        : this.stateValue === 'starting'
          ? 'it is still starting'
          : `it ${this.errorValue ?? 'failed'}`;
    return { isError: true, output: `MCP server '${this.name}' is not running: ${why}` };
  }

  private async closeTransport(): Promise<void> {
    if (this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId !== undefined) {
      // Let a stateful server free the session; a dead one must not hold up shutdown.
      await Promise.race([this.transport.terminateSession().catch(() => undefined), sleep(SESSION_END_MS)]);
    }
    try {
      await this.client.close();
    } catch {
      // Already closed: the process is gone, which is what close wants.
    }
    // The SDK may already have begun closing (it does when `initialize` fails), in which case the
    // call above returns at once while the child is still being stopped: wait for it to be gone.
    if (this.transport instanceof PidKeepingStdioTransport && this.transport.spawnedPid !== null) {
      await waitForExit(this.transport.spawnedPid);
    }
  }

  private async listTools(request: { signal: AbortSignal; timeout: number }): Promise<ServerTool[]> {
    if (this.client.getServerCapabilities()?.tools === undefined) return [];
    const tools: ServerTool[] = [];
    let cursor: string | undefined;
    let dropped = 0;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await this.client.listTools(cursor === undefined ? undefined : { cursor }, request);
      for (const tool of result.tools) {
        // Such tools only work through the SDK's experimental task API, which the host does not use.
        if (tool.execution?.taskSupport === 'required') continue;
        if (tools.length >= MAX_TOOLS_PER_SERVER) {
          dropped += 1;
          continue;
        }
        tools.push({
          name: tool.name,
          description: tool.description ?? tool.title ?? '',
          inputSchema: { ...tool.inputSchema },
        });
      }
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    if (dropped > 0 || cursor !== undefined) {
      this.options.onNotice({
        level: 'warning',
        text: `MCP server '${this.name}' offers more tools than tether takes; only the first ${tools.length} are used`,
      });
    }
    return tools;
  }
}

/** Keeps the child's pid after the SDK forgets it, so close can make sure the process ended. */
class PidKeepingStdioTransport extends StdioClientTransport {
  spawnedPid: number | null = null;

  override async start(): Promise<void> {
    await super.start();
    this.spawnedPid = this.pid;
  }
}

/**
 * Milliseconds to wait for a child to end after close. The SDK allows 2 s after closing stdin,
 * then 2 s after SIGTERM before SIGKILL; this is past both, and then SIGKILL is sent here.
 */
const EXIT_WAIT_MS = 5_000;
/** How often, in milliseconds, to look whether the child is gone. */
const EXIT_POLL_MS = 25;

async function waitForExit(pid: number): Promise<void> {
  for (let waited = 0; waited < EXIT_WAIT_MS; waited += EXIT_POLL_MS) {
    if (!isAlive(pid)) return;
    await sleep(EXIT_POLL_MS);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone in the meantime.
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: the pid was reused by someone else's process, so ours is gone too.
    return false;
  }
}

function createTransport(config: McpServerConfig): PidKeepingStdioTransport | StreamableHTTPClientTransport {
  switch (config.transport) {
    case 'stdio':
      return new PidKeepingStdioTransport({
        command: config.command,
        args: config.args,
        // The SDK's safe subset (PATH, HOME, USER, …), not the host's whole environment with its API keys.
        env: { ...getDefaultEnvironment(), ...config.env },
        stderr: 'pipe',
        ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
      });
    case 'http':
      // The headers are added by the fetch, to the server's own origin only, and redirects are
      // followed there by hand (redirectPolicy 'follow' hands every redirect to it).
      return new StreamableHTTPClientTransport(new URL(config.url), {
        fetch: originPinnedFetch(new URL(config.url), config.headers),
        redirectPolicy: 'follow',
      });
  }
}

/** The message, plus its cause's: fetch says only "fetch failed" and hides ECONNREFUSED there. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  return cause instanceof Error && !error.message.includes(cause.message)
    ? `${error.message} (${cause.message})`
    : error.message;
}
