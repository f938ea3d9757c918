// The execution package's API: what the host (and, over a link, a machine) runs tools with.
export type {
  DirEntryInfo,
  DirListing,
  ExecOutcome,
  ExecRequest,
  ExecRunError,
  ExecutionContext,
  FileText,
  ReadOptions,
  FileWritten,
  FsError,
  InputError,
  KillSignal,
  OutputStream,
  ProcessExit,
  ProcessHandle,
  SearchError,
  SearchFound,
  SearchHit,
  SearchQuery,
  SpawnCommand,
  SpawnError,
  SpawnRequest,
} from './execution-context.js';
export { displayPath } from './confine.js';
export type { LocalContextOptions } from './local-context.js';
export type { FileStat } from './confined-files.js';
export { LocalContext, MAX_LIVE_PROCESSES } from './local-context.js';
export { REGEX_TIME_LIMIT_MS } from './regex-search.js';
export { MAX_PENDING_INPUT_BYTES } from './spawn-process.js';
// The machine agent: lending this computer to a host over a sealed link.
export type { AgentState, HostKeyPinStore, MachineAgentOptions } from './share/machine-agent.js';
export { MACHINE_SERVES, MachineAgent, RECONNECT_BACKOFF } from './share/machine-agent.js';
export type { MachineExecutorOptions } from './share/machine-executor.js';
export { MachineExecutor } from './share/machine-executor.js';
export { HostKeyPins, machinePaths, resolveMachineDir } from './share/machine-data.js';
export type { PrivatePathOptions } from './private-paths.js';
export { PRIVATE_HOME_PATHS, homeFolder, isPrivatePath, privatePaths } from './private-paths.js';
export { checkSharedRoots } from './share/shared-roots.js';
export type { RunningShare, ShareOptions, ShareStatusReport } from './share/share.js';
export { describeState, readTokenFile, shareStatus, startShare } from './share/share.js';
export type { CommandRunner, ServiceOutcome, ServicePlan, ServiceSpec } from './share/background-service.js';
export { installService, servicePlan, shellLine, uninstallService } from './share/background-service.js';
export { machineSocketUrl, wsConnect } from './link/ws-connect.js';
export { chooseLinkAead, nodeLinkAead } from './link/node-link-aead.js';
export type { PtyPort, PtyProcess, PtySpawn } from './terminal/pty-port.js';
export { NodePtyPort } from './terminal/node-pty-port.js';
export type { OutputChunk } from './terminal/terminal-backlog.js';
export { TERMINAL_BACKLOG_BYTES, TerminalBacklog } from './terminal/terminal-backlog.js';
export type { ScreenSnapshot } from './terminal/terminal-screen.js';
export { TerminalScreen } from './terminal/terminal-screen.js';
export { MAX_SCREEN_LAG_BYTES, MAX_SNAPSHOT_BYTES, SCREEN_SCROLLBACK_LINES } from './terminal/terminal-screen.js';
export type { OutputReader, TerminalHandle, TerminalOptions } from './terminal/terminal.js';
export { MAX_PENDING_TERMINAL_INPUT, Terminal } from './terminal/terminal.js';
export type {
  OpenTerminalError,
  OpenTerminalRequest,
  PtyTerminalsOptions,
  RunProgramRequest,
  TerminalPlace,
} from './terminal/pty-terminals.js';
export type { SecretRead } from './secret-file.js';
export { readSecretFile, writeSecretFile } from './secret-file.js';
export { MAX_TERMINALS, PtyTerminals, loginShell, shellEnvironment } from './terminal/pty-terminals.js';
