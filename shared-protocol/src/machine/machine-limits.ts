/**
 * Bounds of the machine link. Each says its unit and why it is that size; the machine enforces
 * them on what the host sends (a host is never trusted past them), the host on what it asks.
 */

/** Bytes of plaintext in one sealed frame of a machine link: 4 MiB. The largest call is a file
 * read or write of MAX_MACHINE_FILE_BYTES, whose JSON may grow by escapes; a reply past it is
 * answered `too-large`, never cut. Bigger than a device frame: a link carries files, not events. */
export const MAX_LINK_FRAME_PLAINTEXT = 4 * 1024 * 1024;

/** Bytes of a file read or written in one call: 2 MiB, half the frame cap, so any text fits
 * once escaped (a file of control characters is refused by the reply's own size check). */
export const MAX_MACHINE_FILE_BYTES = 2 * 1024 * 1024;

/** Bytes of one reply's body (a file read), sent as binary chunks ahead of the reply: the largest
 * file a call reads. A peer that sends more for one reply has broken the protocol. */
export const MAX_LINK_BODY_BYTES = MAX_MACHINE_FILE_BYTES;

/** Folders one machine may share: enough for every project folder a person keeps. */
export const MAX_MACHINE_ROOTS = 32;

/** Requests the machine works on at once per link; one more is answered `busy`. A host's
 * sessions each wait on one call at a time, so this is far above honest use. */
export const MAX_MACHINE_CALLS_IN_FLIGHT = 64;

/** Live processes (`proc.spawn`) per machine; they die with the link (output cannot be resent). */
export const MAX_LIVE_STREAMS = 16;

/** Raw bytes of output in one `proc.output` event (base64url on the wire): 64 KiB, small enough
 * that output from many processes interleaves on one link. */
export const MAX_OUTPUT_CHUNK_BYTES = 64 * 1024;

/** Bytes of a process's output sent and not yet acknowledged by the host before the machine
 * stops reading its pipes: 1 MiB. The child then blocks on its full pipe; nothing is dropped. */
export const OUTPUT_WINDOW_BYTES = 1024 * 1024;

/** Bytes of stdin in one `proc.write`: 256 KiB; a bigger write is split by the host. */
export const MAX_PROC_WRITE_BYTES = 256 * 1024;

/** Terminals (`pty.spawn`) open at once per machine: 32, as many as a host keeps of its own
 * (MAX_TERMINALS); one more is refused `busy`. They die with the link, like live processes. */
export const MAX_MACHINE_PTYS = 32;

/** Terminal columns and rows a host may ask a machine for: far past any screen, small enough that
 * a screen model of that size stays bounded. */
export const MAX_PTY_COLS = 1000;
export const MAX_PTY_ROWS = 500;

/** Background tasks running at once per machine; one more is refused `busy`. */
export const MAX_RUNNING_TASKS = 64;

/** Bytes of output kept in a background task's log: 8 MiB. Past it the task keeps running, its
 * pipes are still drained (so it never blocks) and the log says how much was left out. */
export const MAX_TASK_OUTPUT_BYTES = 8 * 1024 * 1024;

/** Bytes of a task's log returned by one `tasks.read` or `tasks.wait`: 256 KiB. */
export const MAX_TASK_READ_BYTES = 256 * 1024;

/** Finished tasks remembered for `tasks.list`/`tasks.wait`: the oldest finished one goes first. */
export const MAX_FINISHED_TASKS = 256;

/** Task exits held for the host while the link is down, re-sent on reconnect; past it the oldest
 * goes (counted), and `tasks.list` still answers for every task it remembers. */
export const MAX_QUEUED_TASK_EXITS = 256;

/** Milliseconds a `tasks.wait` may hold its reply: 60 s, under the host's reply deadline. */
export const MAX_TASK_WAIT_MS = 60 * 1000;

/** Requests the host has sent on one link and not had answered; one more fails `busy`. */
export const MAX_PENDING_LINK_REQUESTS = 1024;

/** Milliseconds between link pings from either side: 20 s, under common 30 s idle timeouts. */
export const LINK_PING_INTERVAL_MS = 20 * 1000;

/** Milliseconds to wait for any message after a ping before the link counts as dead: 10 s, so
 * a machine that vanished is offline within 30 s of its last word. */
export const LINK_PONG_TIMEOUT_MS = 10 * 1000;

/** Milliseconds a new link has to finish its handshake and register: 10 s. */
export const LINK_REGISTER_TIMEOUT_MS = 10 * 1000;

/** Characters of a machine name: short enough for a chip in the app. */
export const MAX_MACHINE_NAME = 64;

/** Minutes a call waits for an offline machine before the run stops: the default setting. */
export const DEFAULT_MACHINE_WAIT_MINUTES = 15;
