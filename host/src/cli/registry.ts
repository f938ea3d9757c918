import type { Command } from './command.js';
import { skillsCommand } from './commands/skills.js';
import {
  pluginsAllowCommand,
  pluginsCommand,
  pluginsDisableCommand,
  pluginsEnableCommand,
} from './commands/plugins.js';
import { agentsCommand, agentsContinueCommand, agentsSessionsCommand } from './commands/agents.js';
import { approvalsCommand, approveCommand } from './commands/approvals.js';
import {
  sessionsArchiveCommand,
  sessionsAutoApproveCommand,
  sessionsInterruptCommand,
  sessionsListCommand,
  sessionsNewCommand,
  sessionsSendCommand,
  sessionsShowCommand,
} from './commands/sessions.js';
import { devicesCommand, devicesRevokeCommand } from './commands/devices.js';
import { shareCommand } from './commands/share.js';
import { machineShareCommand, machineStatusCommand } from './commands/machine-share.js';
import { machinesForgetCommand, machinesListCommand } from './commands/machines.js';
import { tokenCreateCommand, tokensListCommand, tokensRevokeCommand } from './commands/tokens.js';
import { doctorCommand } from './commands/doctor.js';
import { pairAllowCommand, pairCommand, pairDenyCommand, pairRequestsCommand } from './commands/pair.js';
import { sessionsLimitCommand } from './commands/sessions-limit.js';
import { sessionsNotifyCommand } from './commands/sessions-notify.js';
import {
  sessionsBudgetCommand,
  sessionsCommandsCommand,
  sessionsModeCommand,
  sessionsModelCommand,
} from './commands/sessions-steer.js';
import { sessionsGitCommand } from './commands/sessions-git.js';
import { startCommand } from './commands/start.js';
import { statusCommand } from './commands/status.js';
import { terminalsCommand } from './commands/terminals.js';
import { attachCommand, runCommand } from './commands/run.js';
import { trustCommand } from './commands/trust.js';

/** Every `tether …` command, in the order `tether --help` lists them. */
export const COMMANDS: Command[] = [
  startCommand,
  statusCommand,
  sessionsListCommand,
  sessionsNewCommand,
  sessionsShowCommand,
  sessionsSendCommand,
  sessionsInterruptCommand,
  sessionsArchiveCommand,
  sessionsAutoApproveCommand,
  sessionsLimitCommand,
  sessionsNotifyCommand,
  sessionsCommandsCommand,
  sessionsModeCommand,
  sessionsModelCommand,
  sessionsBudgetCommand,
  sessionsGitCommand,
  agentsCommand,
  agentsSessionsCommand,
  agentsContinueCommand,
  skillsCommand,
  pluginsCommand,
  pluginsEnableCommand,
  pluginsDisableCommand,
  pluginsAllowCommand,
  trustCommand,
  runCommand,
  attachCommand,
  approvalsCommand,
  approveCommand,
  pairCommand,
  pairRequestsCommand,
  pairAllowCommand,
  pairDenyCommand,
  devicesCommand,
  devicesRevokeCommand,
  shareCommand,
  tokenCreateCommand,
  tokensListCommand,
  tokensRevokeCommand,
  machinesListCommand,
  machinesForgetCommand,
  machineShareCommand,
  machineStatusCommand,
  terminalsCommand,
  doctorCommand,
];
