import type { RunContext } from '../session-backend.js';
import type { Grants } from './acp-grants.js';
import type { ToolState } from './acp-tool-fields.js';
import type { AcpUpdateLog } from './acp-update-log.js';

/** What the client side of one run of an ACP agent works with. */
export interface AcpTurnContext {
  run: RunContext;
  /** The agent as people know it ("Claude Code"), for approvals and notices. */
  agentTitle: string;
  /** Variables the person lets this agent set on its commands (its `allowEnv`). */
  allowedEnv: ReadonlySet<string>;
  log: AcpUpdateLog;
  grants: Grants;
  /**
   * The person denied something the agent asked for (the tool call, if it was one, is reported
   * finished so): an agent that then ends its turn as `cancelled` (Codex's only "no" is to abort)
   * ended it because of the denial, not an interrupt.
   */
  denied(state?: ToolState): void;
}
