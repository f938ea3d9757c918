import type { RunContext } from '../agent/session-backend.js';
import type { Grants } from './acp-grants.js';
import type { AcpUpdateLog } from './acp-update-log.js';

/** What the client side of one run of an ACP agent works with. */
export interface AcpTurnContext {
  run: RunContext;
  /** The agent as people know it ("Claude Code"), for approvals and notices. */
  agentTitle: string;
  log: AcpUpdateLog;
  grants: Grants;
}
