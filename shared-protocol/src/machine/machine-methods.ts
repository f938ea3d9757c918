import * as v from 'valibot';
import { Count, Empty, Id, Name, Path, Timestamp } from '../rpc/common.js';
import { ListDirsResult } from '../rpc/host.js';
import {
  MAX_MACHINE_FILE_BYTES,
  MAX_MACHINE_NAME,
  MAX_MACHINE_ROOTS,
  MAX_OUTPUT_CHUNK_BYTES,
  MAX_PROC_WRITE_BYTES,
  MAX_PTY_COLS,
  MAX_PTY_ROWS,
  MAX_TASK_READ_BYTES,
  MAX_TASK_WAIT_MS,
} from './machine-limits.js';

/**
 * What travels on a machine link once it is sealed: the channel's `{t:"req"|"res"|"evt"|"ping"|
 * "pong"|"bye"}` messages, in both directions. The machine sends one request, `machine.register`,
 * first; after that the host sends requests (one per ExecutionContext operation, plus background
 * tasks) and the machine answers, and both send events (process output and exits, task exits,
 * acknowledgements). Each method names whether it is idempotent: safe to send again after a link
 * dropped before its reply. Every message is decoded against these schemas where it arrives.
 */

/** The machine's own version of what it serves (not the handshake's): a host refuses another.
 * 2: a file read's contents travel as binary body frames (link-body.ts), not as a JSON string. */
export const MACHINE_PROTOCOL_VERSION = 2;

/** A machine's name: a word for lists, `--machine NAME` and approval cards. `local` is the host. */
export const MachineName = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(MAX_MACHINE_NAME),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a machine name is letters, digits, ".", "_" and "-"'),
  v.check((name) => name.toLowerCase() !== 'local', '"local" is the host itself'),
);

export const MACHINE_CAPABILITIES = ['exec', 'files', 'search', 'processes', 'tasks'] as const;
export type MachineCapability = (typeof MACHINE_CAPABILITIES)[number];

/** Machine tokens: `tm_` + id + `_` + secret, where only the host's hash of the secret is kept. */
export const MachineToken = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

export const RegisterParams = v.object({
  token: MachineToken,
  machineId: Id,
  name: MachineName,
  roots: v.pipe(v.array(Path), v.minLength(1), v.maxLength(MAX_MACHINE_ROOTS)),
  capabilities: v.pipe(v.array(v.picklist(MACHINE_CAPABILITIES)), v.maxLength(16)),
  protocolVersion: v.pipe(v.number(), v.integer()),
  /** The machine's software version, for the host's list. */
  version: Name,
  /**
   * The machine's home folder (a real path), when it says: a session reading a hidden entry
   * directly in it asks the person first. Optional; a machine that leaves it out gets no such
   * question (its private list still holds).
   */
  home: v.optional(Path),
});
export type RegisterParams = v.InferOutput<typeof RegisterParams>;

export const RegisterResult = v.object({ machineId: Id, hostId: Id, name: MachineName });

const Base64Url = (maxBytes: number) =>
  v.pipe(v.string(), v.maxLength(Math.ceil((maxBytes * 4) / 3) + 4), v.regex(/^[A-Za-z0-9_-]*$/));
const Text = v.pipe(v.string(), v.maxLength(MAX_MACHINE_FILE_BYTES));
const Millis = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(max));
const Env = v.pipe(
  v.record(v.pipe(v.string(), v.maxLength(256)), v.pipe(v.string(), v.maxLength(32 * 1024))),
  v.check((env) => Object.keys(env).length <= 256, 'at most 256 environment variables'),
);

export const FileTextSchema = v.object({ text: Text, size: Count });
/** A file's bytes as read (the host decodes them as UTF-8, as a local read does). On the link the
 * bytes travel as body frames ahead of the reply (link-body.ts). */
export const FileBodySchema = v.object({
  size: Count,
  body: v.pipe(
    v.custom<Uint8Array>((body) => body instanceof Uint8Array, 'bytes'),
    v.check(
      (body) => body.length <= MAX_MACHINE_FILE_BYTES,
      `a file read holds at most ${MAX_MACHINE_FILE_BYTES} bytes`,
    ),
  ),
});
export const FileWrittenSchema = v.object({ created: v.boolean(), path: Path });
export const DirEntryInfoSchema = v.object({
  name: Name,
  type: v.picklist(['file', 'dir', 'symlink', 'other']),
  size: Count,
});
export const DirListingSchema = v.object({
  entries: v.pipe(v.array(DirEntryInfoSchema), v.maxLength(10_000)),
  truncated: v.boolean(),
});
export const FileStatSchema = v.object({
  type: v.picklist(['file', 'dir', 'other']),
  size: Count,
  modifiedAt: Timestamp,
});
export const SearchQuerySchema = v.object({
  pattern: v.pipe(v.string(), v.minLength(1), v.maxLength(10_000)),
  regex: v.boolean(),
  caseSensitive: v.boolean(),
  path: v.optional(Path),
  maxResults: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)),
});
export const SearchFoundSchema = v.object({
  hits: v.pipe(
    v.array(v.object({ path: Path, line: Count, text: v.pipe(v.string(), v.maxLength(2000)) })),
    v.maxLength(10_000),
  ),
  truncated: v.boolean(),
  filesScanned: Count,
});
export const ExecOutcomeSchema = v.object({
  exitCode: v.nullable(v.pipe(v.number(), v.integer())),
  signal: v.nullable(Name),
  output: Text,
  droppedBytes: Count,
  timedOut: v.boolean(),
  aborted: v.boolean(),
  durationMs: Count,
});
export const SpawnCommandSchema = v.union([
  v.object({ program: v.pipe(v.string(), v.maxLength(4096)), args: v.pipe(v.array(v.string()), v.maxLength(4096)) }),
  v.object({ shell: v.pipe(v.string(), v.maxLength(256 * 1024)) }),
]);
export const KillSignalSchema = v.picklist(['SIGTERM', 'SIGKILL', 'SIGINT', 'SIGHUP']);

/** How a process ended: its exit code and the signal that ended it, each null where there is none. */
const ExitStatus = { code: v.nullable(v.pipe(v.number(), v.integer())), signal: v.nullable(Name) };

export const TaskInfoSchema = v.object({
  id: Id,
  command: v.pipe(v.string(), v.maxLength(256 * 1024)),
  cwd: Path,
  startedAt: Timestamp,
  state: v.picklist(['running', 'exited']),
  ...ExitStatus,
  endedAt: v.nullable(Timestamp),
  /** Bytes of output the task produced, kept or not. */
  outputBytes: Count,
  /** Of those, bytes not kept because the log reached MAX_TASK_OUTPUT_BYTES. */
  droppedBytes: Count,
});
export type TaskInfo = v.InferOutput<typeof TaskInfoSchema>;

export const TaskOutputSchema = v.object({
  /** Base64url of the log's bytes from `offset`. */
  data: Base64Url(MAX_TASK_READ_BYTES),
  offset: Count,
  /** Bytes in the log now. */
  total: Count,
});

function call<P extends v.GenericSchema, R extends v.GenericSchema>(params: P, result: R, idempotent: boolean) {
  return { params, result, idempotent };
}

const RootPath = { root: Path, path: Path };

/** Host → machine requests. A method not in this table is refused with `unknown-method`. */
export const MACHINE_METHODS = {
  'machine.ping': call(Empty, v.object({ now: Timestamp }), true),
  /** The folder's real path when it is a folder inside a shared root. */
  'fs.checkFolder': call(v.object({ path: Path }), v.object({ path: Path }), true),
  'fs.read': call(
    v.object({
      ...RootPath,
      maxBytes: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_MACHINE_FILE_BYTES)),
      /** The first `maxBytes` of a larger file rather than `too-large`; `size` is then the whole file's. */
      head: v.optional(v.boolean()),
    }),
    FileBodySchema,
    true,
  ),
  'fs.write': call(v.object({ ...RootPath, text: Text }), FileWrittenSchema, false),
  'fs.list': call(
    v.object({ ...RootPath, maxEntries: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)) }),
    DirListingSchema,
    true,
  ),
  'fs.stat': call(v.object(RootPath), FileStatSchema, true),
  /** Where a path inside a root really leads (through links); it need not exist yet. */
  'fs.realPath': call(v.object(RootPath), v.object({ path: Path }), true),
  'fs.search': call(v.object({ root: Path, query: SearchQuerySchema }), SearchFoundSchema, true),
  /** Folders for the app's picker: no path lists the roots themselves. */
  'fs.listDirs': call(v.object({ path: v.optional(Path) }), ListDirsResult, true),
  /** A shell command run to its end; `callId` names it for `exec.cancel`. */
  'exec.run': call(
    v.object({
      callId: Id,
      command: v.pipe(v.string(), v.minLength(1), v.maxLength(256 * 1024)),
      cwd: Path,
      timeoutMs: Millis(24 * 3600 * 1000),
      maxOutputBytes: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_MACHINE_FILE_BYTES)),
    }),
    ExecOutcomeSchema,
    false,
  ),
  'exec.cancel': call(v.object({ callId: Id }), Empty, true),
  'proc.spawn': call(
    v.object({ procId: Id, command: SpawnCommandSchema, cwd: Path, root: v.optional(Path), env: v.optional(Env) }),
    Empty,
    false,
  ),
  'proc.write': call(v.object({ procId: Id, data: Base64Url(MAX_PROC_WRITE_BYTES) }), Empty, false),
  'proc.closeInput': call(v.object({ procId: Id }), Empty, true),
  'proc.kill': call(v.object({ procId: Id, signal: v.optional(KillSignalSchema) }), Empty, true),
  /** A terminal: the machine's login shell on a PTY in a shared folder (the first root when no
   * `cwd`), its credentials out of the environment. `ptyId` names it, as `procId` does a process. */
  'pty.spawn': call(
    v.object({
      ptyId: Id,
      cwd: v.optional(Path),
      cols: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_PTY_COLS)),
      rows: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_PTY_ROWS)),
    }),
    v.object({ shell: Path, cwd: Path, pid: Count }),
    false,
  ),
  'pty.write': call(v.object({ ptyId: Id, data: Base64Url(MAX_PROC_WRITE_BYTES) }), Empty, false),
  'pty.resize': call(
    v.object({
      ptyId: Id,
      cols: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_PTY_COLS)),
      rows: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_PTY_ROWS)),
    }),
    Empty,
    true,
  ),
  'pty.kill': call(v.object({ ptyId: Id, signal: v.optional(KillSignalSchema) }), Empty, true),
  'tasks.start': call(
    v.object({ command: v.pipe(v.string(), v.minLength(1), v.maxLength(256 * 1024)), cwd: Path }),
    v.object({ task: TaskInfoSchema }),
    false,
  ),
  'tasks.list': call(Empty, v.object({ tasks: v.pipe(v.array(TaskInfoSchema), v.maxLength(1024)) }), true),
  /** Waits up to `timeoutMs` for the task to end; answers with its state either way. */
  'tasks.wait': call(
    v.object({ taskId: Id, timeoutMs: Millis(MAX_TASK_WAIT_MS) }),
    v.object({ task: TaskInfoSchema }),
    true,
  ),
  'tasks.read': call(
    v.object({
      taskId: Id,
      offset: Count,
      maxBytes: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_TASK_READ_BYTES)),
    }),
    TaskOutputSchema,
    true,
  ),
  'tasks.kill': call(v.object({ taskId: Id }), Empty, true),
} as const;

export type MachineMethods = typeof MACHINE_METHODS;
export type MachineMethodName = keyof MachineMethods;
export type MachineParams<M extends MachineMethodName> = v.InferOutput<MachineMethods[M]['params']>;
export type MachineResult<M extends MachineMethodName> = v.InferOutput<MachineMethods[M]['result']>;

export function isMachineMethod(name: string): name is MachineMethodName {
  return Object.prototype.hasOwnProperty.call(MACHINE_METHODS, name);
}

/** The one request a machine sends. */
export const MACHINE_REGISTER_METHOD = 'machine.register';

/** Events either side sends; an unknown type is counted and skipped. */
export const MACHINE_EVENT_SCHEMAS = {
  /** Machine → host: output of a live process, in order per stream. */
  'proc.output': v.object({
    type: v.literal('proc.output'),
    procId: Id,
    stream: v.picklist(['stdout', 'stderr']),
    data: Base64Url(MAX_OUTPUT_CHUNK_BYTES),
  }),
  /** Machine → host: a live process ended; sent after all its output. */
  'proc.exit': v.object({
    type: v.literal('proc.exit'),
    procId: Id,
    ...ExitStatus,
  }),
  /** Host → machine: bytes of a process's output the host has taken; reopens its window. */
  'proc.ack': v.object({ type: v.literal('proc.ack'), procId: Id, bytes: Count }),
  /** Machine → host: a terminal's output, raw bytes in order. */
  'pty.output': v.object({ type: v.literal('pty.output'), ptyId: Id, data: Base64Url(MAX_OUTPUT_CHUNK_BYTES) }),
  /** Machine → host: a terminal's program ended; sent after all its output. */
  'pty.exit': v.object({
    type: v.literal('pty.exit'),
    ptyId: Id,
    ...ExitStatus,
  }),
  /** Host → machine: bytes of a terminal's output the host has taken; reopens its window. */
  'pty.ack': v.object({ type: v.literal('pty.ack'), ptyId: Id, bytes: Count }),
  /** Machine → host: a background task ended (queued while the link is down, sent on reconnect). */
  'task.exit': v.object({ type: v.literal('task.exit'), task: TaskInfoSchema }),
} as const;

export type MachineEventType = keyof typeof MACHINE_EVENT_SCHEMAS;
export type MachineEvent = v.InferOutput<(typeof MACHINE_EVENT_SCHEMAS)[MachineEventType]>;

export type DecodedMachineEvent =
  { kind: 'event'; event: MachineEvent } | { kind: 'unknown' | 'invalid'; type: string };

export function decodeMachineEvent(input: unknown): DecodedMachineEvent {
  const type = typeof input === 'object' && input !== null ? (input as { type?: unknown }).type : undefined;
  if (typeof type !== 'string') return { kind: 'invalid', type: String(type) };
  if (!Object.prototype.hasOwnProperty.call(MACHINE_EVENT_SCHEMAS, type)) return { kind: 'unknown', type };
  const parsed = v.safeParse(MACHINE_EVENT_SCHEMAS[type as MachineEventType], input);
  return parsed.success ? { kind: 'event', event: parsed.output } : { kind: 'invalid', type };
}
