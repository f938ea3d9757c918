// Lengthens a session of a stopped host's database to a given number of events, for
// e2e/bench/long-session.ts: the session's own log (a real run, as the host wrote it) is appended
// again, whole, as often as it fits in COUNT events, through the host's own event log (EventLog.append,
// the same code a run writes through), each copy's ids made its own. Every copy's closing "THE END"
// reads "THE END, part N" (an event builder's `lastSeq` is the new event's), the last one's MARKER.
// Usage: long-session-fill.ts DATABASE SESSION COUNT MARKER
import type { SessionEventBody } from '@tether/shared-protocol';
import { openDatabase } from '../src/store/database.js';
import { EventLog } from '../src/store/event-log.js';

const [database, sessionId, countText, marker] = process.argv.slice(2);
const count = Number(countText);
if (!database || !sessionId || !Number.isInteger(count) || !marker) {
  throw new Error('usage: long-session-fill.ts DATABASE SESSION COUNT MARKER');
}
const db = openDatabase(database);
const log = new EventLog(db, { now: () => Date.now() });
const template = [...log.readAll(sessionId)].map(({ seq: _seq, sessionId: _id, at: _at, ...body }) =>
  JSON.stringify(body),
);
if (template.length === 0) throw new Error(`no events in ${sessionId}`);
/** Every id-like string value (a key `id` or ending in `Id`), to be made each copy's own. */
const ids = new Set<string>();
const collect = (value: unknown): void => {
  if (Array.isArray(value)) return value.forEach(collect);
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if ((key === 'id' || key.endsWith('Id')) && typeof inner === 'string' && inner !== sessionId) ids.add(inner);
    else collect(inner);
  }
};
template.forEach((json) => collect(JSON.parse(json)));
const idPattern = new RegExp([...ids].map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');

const parts = Math.floor((count - log.lastSeq(sessionId)) / template.length);
if (parts < 1)
  throw new Error(`${sessionId} holds ${log.lastSeq(sessionId)} events: no room for a copy of ${template.length}`);
for (let part = 1; part <= parts; part++) {
  for (const json of template) {
    const text = (ids.size > 0 ? json.replace(idPattern, (id) => `${id}-${part}`) : json).replaceAll(
      'THE END',
      part === parts ? marker : `THE END, part ${part}`,
    );
    const body = JSON.parse(text) as SessionEventBody & { lastSeq?: number };
    log.append(sessionId, 'lastSeq' in body ? (seq) => ({ ...body, lastSeq: seq }) : body);
  }
}
console.log(`${sessionId}: ${log.lastSeq(sessionId)} events`);
db.close();
