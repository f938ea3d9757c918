import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { RunContext } from '../session-backend.js';
import { AcpFiles } from './acp-files.js';
import { Grants } from './acp-grants.js';
import { askPermission } from './acp-permission.js';
import { AcpTerminals } from './acp-terminals.js';
import type { AcpTurnContext } from './acp-turn-context.js';
import type { ToolState } from './acp-tool-fields.js';
import { AcpUpdateLog, MAX_UPDATE_BURST, UPDATES_PER_SECOND } from './acp-update-log.js';

/**
 * One run of an ACP agent as the client sees it: the agent's updates go to the session's log, its
 * permission requests to the approval gate, its file and terminal requests to the session's
 * execution context. Made when a run starts, closed when it ends (its terminals end with it).
 */
export class AcpTurn implements AcpTurnContext {
  readonly log: AcpUpdateLog;
  readonly grants = new Grants();
  readonly files: AcpFiles;
  readonly terminals: AcpTerminals;
  private closed = false;
  /** Denials the person gave in this run. */
  denials = 0;
  readonly agentTitle: string;
  readonly allowedEnv: ReadonlySet<string>;

  /** `agent`: its title and `allowEnv` (AgentSpec); `end`: ends the agent's process (it flooded the log). */
  constructor(
    readonly run: RunContext,
    agent: { title: string; allowEnv?: readonly string[] },
    end: () => void = () => undefined,
  ) {
    this.agentTitle = agent.title;
    this.allowedEnv = new Set(agent.allowEnv ?? []);
    this.terminals = new AcpTerminals(this);
    this.files = new AcpFiles(this);
    this.log = new AcpUpdateLog({
      run,
      terminalOutput: (id) => this.terminals.text(id),
      onFlood: () => {
        run.append({
          type: 'notice',
          level: 'error',
          text: `${agent.title} sent more than ${MAX_UPDATE_BURST} updates at once (over ${UPDATES_PER_SECOND} a second); it was stopped.`,
        });
        end();
      },
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** A request's own signal (the agent cancelled it, the connection closed) or the run's interrupt. */
  signal(request: AbortSignal): AbortSignal {
    return AbortSignal.any([request, this.run.signal]);
  }

  denied(state?: ToolState): void {
    this.denials++;
    if (state) this.log.denied(state, 'Denied: not run.');
  }

  permission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    return askPermission(this, params, this.signal(signal));
  }

  /** The run ends: the message being streamed is kept, unfinished tool calls say why, terminals stop. */
  close(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.terminals.closeAll();
    this.log.close(why);
  }
}
