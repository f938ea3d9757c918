/** Protocol limits. Each says its unit and why it is that size. */

/** Bytes of plaintext in one sealed frame: 1 MiB. Large enough for a page of replayed events or
 * a whole approval diff, small enough that one frame never stalls a phone's connection for long. */
export const MAX_FRAME_PLAINTEXT = 1024 * 1024;

/** Bytes of an approval's action text: 512 KiB. Kept under the frame cap with room for the rest
 * of the event, because an approval is always shown whole and never shortened. */
export const MAX_ACTION_TEXT = 512 * 1024;

/** Milliseconds a handshake or one-shot timestamp may differ from the receiver's clock: 2 min.
 * Phones drift; more than this is a replay or a broken clock. */
export const HANDSHAKE_CLOCK_WINDOW_MS = 2 * 60 * 1000;

/** Entries in a replay cache of first messages seen within the clock window. When full with
 * unexpired entries, new handshakes are refused as `busy` rather than forgetting a live one. */
export const REPLAY_CACHE_ENTRIES = 65_536;

/** Bytes of a pairing HTTP body (the sealed request): 16 KiB; the request holds a key and a label. */
export const MAX_PAIR_BODY = 16 * 1024;

/** Characters of a device label ("iPhone · Safari"). */
export const MAX_DEVICE_LABEL = 64;

/** Characters of a device label as the host keeps and shows it, hidden characters shown as marks
 * (`⟨U+202E⟩`, up to 8 characters each): 256, the size of every name field, cut with `…` past it. */
export const MAX_SHOWN_LABEL = 256;

/** Bytes of a one-shot call body: 64 KiB; one-shot calls are small actions (answer an approval). */
export const MAX_ONE_SHOT_BODY = 64 * 1024;

/** Milliseconds a pairing link stays valid: 10 min. */
export const PAIRING_LINK_TTL_MS = 10 * 60 * 1000;

/** Milliseconds the host holds a pair request open for the person's answer: 50 s, under common
 * 60 s proxy and browser idle timeouts so the phone gets an answer rather than a dropped request. */
export const PAIR_ANSWER_WAIT_MS = 50 * 1000;

/** Milliseconds a handshake may take, on either side: 10 s. The device waits this long for the
 * welcome; the host gives a new connection this long to send its hello. Well under the RPC
 * timeout, so a call made while connecting still has time for its answer. */
export const HANDSHAKE_TIMEOUT_MS = 10 * 1000;

/** Milliseconds a client waits for an RPC reply by default: 20 s. */
export const RPC_TIMEOUT_MS = 20 * 1000;

/** Milliseconds between client pings: 25 s, under the 30 s idle timeouts common on mobile
 * networks and proxies, so a silent dead connection is found within one ping plus its wait. */
export const PING_INTERVAL_MS = 25 * 1000;

/** Milliseconds to wait for a pong before treating the connection as dead: 10 s. */
export const PONG_TIMEOUT_MS = 10 * 1000;

/** Requests a client holds while disconnected; further calls fail at once with `busy`. */
export const MAX_PENDING_CALLS = 256;

/** Sessions one connection may watch at once. */
export const MAX_WATCHED_SESSIONS = 64;

/** Characters of a user message sent to a session: 256 KiB. */
export const MAX_MESSAGE_TEXT = 256 * 1024;

/** Bytes of tool output carried in one `tool.finished` event: 64 KiB (the rest is summarised). */
export const MAX_TOOL_OUTPUT_EVENT = 64 * 1024;

/** Characters of the diff carried in one `file.changed` event: 256 KiB (the rest is cut and
 * marked), so a page of changes still fits a frame. */
export const MAX_DIFF_EVENT = 256 * 1024;
/** Characters of the diff a tool event carries (an ACP agent's edit, as a unified diff): 256 KiB,
 * under the frame cap with room for the rest of the event; a longer diff is cut and says so. */
export const MAX_TOOL_DIFF_EVENT = 256 * 1024;

/** Files a tool event names as the places it reads or changes; more are left out. */
export const MAX_TOOL_LOCATIONS = 64;

/** Entries of a plan event, and characters of each: a checklist on a phone, not a document. */
export const MAX_PLAN_ENTRIES = 100;
export const MAX_PLAN_ENTRY_TEXT = 2000;
