import type { InhibitorCommand, InhibitorSpawner } from '../power/sleep-inhibitor.js';
import type { Clock } from '@tether/shared-protocol';
import type { Agent } from 'node:https';
import type { PairRequestInfo } from '../gateway/pairing-service.js';
import type { McpNotice } from '../mcp/types.js';
import type { PushSender } from '../push/push-sender.js';
import type { RelayLinkState } from '../relay/relay-link.js';
import type { RelayEntry } from '../relay/relay-roster.js';
import type { ListenOptions } from '../remote/start-remote.js';
import type { AcpLimits } from '../sessions/acp/acp-backend.js';

/** How a host is started: `tether start`'s flags, and what tests shorten or replace. */
export interface HostOptions {
  dataDir: string;
  /** `--model`; the default follows the API keys in `env`. */
  model?: string;
  /** `--mcp-config`; otherwise `<data-dir>/mcp.json` when it exists. */
  mcpConfig?: string;
  /** `--agents-config`; otherwise `<data-dir>/agents.json` when it exists (else the ready entries only). */
  agentsConfig?: string;
  /** Bounds of ACP agent runs (tests shorten the timeouts). */
  acpLimits?: Partial<AcpLimits>;
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Things the person at the computer should see (MCP failures, retries). */
  onNotice?: (notice: McpNotice) => void;
  /** Milliseconds between the demo model's words (tests make it fast). */
  demoDelayMs?: number;
  /** Milliseconds of the first retry wait after a 429/5xx (tests make it short). */
  retryBaseDelayMs?: number;
  /** Folders devices may start sessions in (`--root`); the home folder when absent. */
  roots?: string[];
  /** The LAN or Tailscale listener for phones; none when absent (the local CLI still works). */
  remote?: RemoteOptions;
  /** Milliseconds a pair request waits for the person's answer (tests shorten it). */
  pairAnswerWaitMs?: number;
  /** Pair attempts per source address per minute (default 10; the fuzzer raises it). */
  pairAttemptsPerMinute?: number;
  /** A pair request waits at the computer for the person's answer. */
  onPairRequest?: (request: PairRequestInfo) => void;
  /** It was answered, or gave up. */
  onPairSettled?: (id: string) => void;
  /** Push: a sender in place of Web Push (tests), or an agent trusting a test push service's CA. */
  push?: {
    sender?: PushSender;
    agent?: Agent;
    requestTimeoutMs?: number;
    extraPushOrigins?: string[];
    retryBaseMs?: number;
  };
  /** Model calls a run may make before it waits for a go-on (`--max-model-calls`), unless a
   * session sets its own. */
  maxModelCalls?: number;
  /** Bytes all attachments may hold together (DEFAULT_BLOB_CAP, 1 GiB, when absent). */
  blobCap?: number;
  /** The default model's context window in tokens (`--context-window`); else the built-in table's. */
  contextWindow?: number;
  /** Milliseconds a session's call waits for an offline machine before its run stops (default 15 min). */
  machineWaitMs?: number;
  /**
   * Keeping the computer awake while a run is active or a terminal attached (power/keep-awake.ts):
   * on unless `enabled` is false (`--no-keep-awake`); tests give their own command or spawner.
   */
  keepAwake?: { enabled?: boolean; command?: InhibitorCommand | string; spawner?: InhibitorSpawner };
  /** Milliseconds a terminal with no device attached stays open (default 30 min). */
  terminalIdleMs?: number;
  /** Milliseconds a wrapped program's output is still before its screen is read for a question. */
  promptQuietMs?: number;
  /** `--relay URL`, once or more: keep a link to one of these relays (the next when it drops), so
   * phones anywhere reach the host through it. */
  relay?: { urls: string[] };
  /** The relay link changed state (linked, waiting, stopped). */
  onRelayState?: (state: RelayLinkState) => void;
  /** A relay refused this host and is passed over for a while. */
  onRelayHeld?: (entry: RelayEntry) => void;
  /** Hears the name of each part as it is closed, in the order closed (tests check it). */
  onPartClosed?: (part: string) => void;
}

export interface RemoteOptions extends ListenOptions {
  /** Folders devices may start sessions in. */
  roots: string[];
  /** The built app; `<repo>/pwa/dist` by default. */
  appDir?: string;
  /** More origins allowed to call the remote endpoints (a relay's app origin). */
  extraOrigins?: string[];
}
