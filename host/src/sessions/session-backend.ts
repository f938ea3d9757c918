import type {
  ChoiceRef,
  Clock,
  InstructionFile,
  Result,
  SessionBudget,
  SessionControls,
  SessionEventBody,
} from '@tether/shared-protocol';
import type { ExecutionContext } from '@tether/machine';
import type { SessionRecord, UserMessage } from '../store/session-store.js';
import type { ApprovalGate } from './approval-gate.js';
import type { SpendState } from './spend-guard.js';

/** What one run of a session may use: its log, its approval gate, its place, and the time. */
export interface RunContext {
  readonly sessionId: string;
  /** The session as stored now (rules, auto-approve and the model may change during a run). */
  record(): SessionRecord;
  append(body: SessionEventBody): void;
  /** Follow-up messages sent while the run was busy, oldest first (taken, so delivered once). */
  takeQueued(): UserMessage[];
  /** Every action that changes the world goes through it. */
  gate: ApprovalGate;
  /** Where the session's tools act: this computer or a machine. */
  context: ExecutionContext;
  clock: Clock;
  newId: (prefix: string) => string;
  signal: AbortSignal;
  /** Model calls this run may make before it stops and waits for a "go on" (a back-end default otherwise). */
  readonly maxModelCalls?: number;
  /** The bytes of an attachment the session holds (blob-store.ts); undefined when they are gone. */
  attachmentBytes?(blobId: string): Uint8Array | undefined;
  /** How the run goes, for the session's "at a glance" (model calls, tokens). */
  progress?(progress: RunProgress): void;
  /** What the session has spent and its budget, as of now: read before each model call. */
  spend?(): SpendState;
  /** The session's summary changed (its mode, an agent's model): devices are told. */
  announce?(): void;
  /** A command the run carries out instead of a turn (`/compact`). */
  command?: RunCommand;
}

/** What a run does instead of a turn: compact the history now, with the person's focus if given. */
export type RunCommand = { name: 'compact'; focus?: string };

export interface RunProgress {
  /** A model call starts: its number in this run, from 1. */
  modelCall?: number;
  /** Tokens the last model call used, and its cost where its price is known (else `unpriced`). */
  usage?: { inputTokens: number; outputTokens: number; costUsd?: number; unpriced?: true };
  /** The instruction files this run's system prompt took in, in order. */
  instructions?: InstructionFile[];
  /** How full the model's context was at the last request, in tokens. */
  context?: { tokens: number; window: number };
  /** The history was compacted (once per compaction). */
  compacted?: true;
}

export interface RunResult {
  status: 'done' | 'interrupted' | 'error';
  error?: string;
  /** What the run used; absent when the back-end cannot tell (an ACP agent reports no tokens). */
  usage?: { inputTokens: number; outputTokens: number };
  /** The run stopped at its model-call limit: the session waits for someone to say go on. */
  limitReached?: true;
  /** The run stopped before a model call (or prompt) that could have passed the budget: why, in words. */
  budgetReached?: string;
}

/** How a back-end's sessions are steered: the commands, modes and models they offer. */
export interface BackendSteering {
  /** What the session offers now (an agent that has not started: what it offered last, if anything). */
  controls(record: SessionRecord): Promise<SessionControls>;
  /** Switches the mode (one the session offers); the mode it is in now. Stored by the caller. */
  setMode(record: SessionRecord, mode: string): Promise<Result<ChoiceRef>>;
  /** Switches the model (one the session offers); the model it runs now. Stored by the caller. */
  setModel(record: SessionRecord, model: string): Promise<Result<ChoiceRef>>;
  /** Why a budget cannot be kept for this session (`id` '' for one about to be made), if it cannot. */
  budgetProblem?(record: Pick<SessionRecord, 'id' | 'model'>, budget: SessionBudget): string | undefined;
}

/**
 * A session back-end: what actually works on a session (the built-in agent loop, an ACP agent,
 * a wrapped CLI program). The session manager owns everything around it (status, queued
 * messages, the run's lifetime, interrupts, crash recovery); a back-end only runs.
 */
export interface SessionBackend {
  /** Whether a session with this model (or agent) can be started, checked before it is stored. */
  check(model: string): Result<void>;
  /** One run. The messages that start it are already in the session's log. */
  run(run: RunContext): Promise<RunResult>;
  /** The agent a session with this model talks to, kept in the session's `agent` (none: the back-end is the agent). */
  agent?(model: string): string;
  /** Present when a session is a live program rather than a series of runs (a wrapped CLI). */
  readonly live?: LiveSessions;
  /** Present when its sessions have commands, modes or models to choose. */
  readonly steering?: BackendSteering;
  /**
   * Why a run may not even start under the session's budget (an agent whose own model calls
   * Tether cannot check one by one), if it may not: its messages then wait, queued.
   */
  budgetRefusal?(record: SessionRecord, spend: SpendState): string | undefined;
}

/**
 * A back-end whose sessions are programs that run on their own: a message goes straight to the
 * program and stop is said to it, with no run around either.
 */
export interface LiveSessions {
  send(sessionId: string, text: string): Result<{ queued: boolean }>;
  interrupt(sessionId: string): Result<Record<string, never>>;
  /** After a restart: the words for a session whose program ended with the host. */
  lostWithHost(record: SessionRecord): string;
}
