import type { MachineMethodName, ProtocolError } from '@tether/shared-protocol';
import { EXEC_ERROR_CODES, MACHINE_METHODS, decodeChannelMessage, encodeChannelMessage } from '@tether/shared-protocol';
import * as v from 'valibot';
import type { RemoteMachineContext } from '../src/machines/remote-machine-context.js';
import type { MachineKit } from '../src/machines/testing/machine-kit.js';
import type { FuzzKit } from './fuzz-kit.js';
import { describe, settle } from './fuzz-kit.js';
import type { MachineEnd } from './machine-end.js';

/**
 * The host's own calls on a registered machine's context, answered as a hostile machine likes:
 * a valid result, a mutated one, an error, or a reply to a call that does not exist. Each call
 * must end, with the result the machine sent (as its schema reads it) or an execution error.
 */

/** How one of the host's calls on a machine context ends. */
type CallOutcome = { ok: true; value: unknown } | { ok: false; error: { code: string } };

const EXEC_CODES: ReadonlySet<string> = new Set(EXEC_ERROR_CODES);

/** A valid result of each method the host asks a machine, as a machine would answer it. */
const RESULTS: Partial<Record<MachineMethodName, unknown>> = {
  'fs.read': { text: 'hi', size: 2 },
  'fs.write': { created: true, path: '/srv/share/x' },
  'fs.list': { entries: [{ name: 'a', type: 'file', size: 1 }], truncated: false },
  'fs.realPath': { path: '/srv/share/x' },
  'fs.checkFolder': { path: '/srv/share' },
  'fs.search': { hits: [{ path: 'a', line: 1, text: 'x' }], truncated: false, filesScanned: 1 },
  'fs.listDirs': { path: null, parent: null, dirs: [{ name: 'share', path: '/srv/share' }], truncated: false },
  'exec.run': {
    exitCode: 0,
    signal: null,
    output: 'ok',
    droppedBytes: 0,
    timedOut: false,
    aborted: false,
    durationMs: 1,
  },
  'proc.spawn': {},
  'tasks.list': { tasks: [] },
};

/** One of the host's own calls, answered as a hostile machine likes. */
export async function hostCall(k: FuzzKit, machines: MachineKit, link: MachineEnd): Promise<void> {
  const context = machines.registry.context(link.name!);
  if (!context) return k.fail(`the registered machine ${link.name} has no context`);
  link.incoming.length = 0;
  const [method, call] = pickCall(k, context);
  let ended = false;
  let outcome: CallOutcome | undefined;
  const running = call().then(
    (r) => {
      ended = true;
      outcome = r;
    },
    (error: unknown) => {
      ended = true;
      k.fail(`${method}: the host's call threw: ${describe(error)}`);
    },
  );
  await settle();
  const request = link.take((m) => m.t === 'req' && m.method === method);
  if (!request || request.t !== 'req') {
    if (!ended) k.fail(`${method}: the host's call neither went out nor ended`);
    return;
  }
  const valid = RESULTS[method as MachineMethodName] ?? {};
  const roll = k.random();
  /** The result sent for this call that its schema accepts, if one was. */
  let sentResult: unknown;
  let reply: Uint8Array;
  const schema = MACHINE_METHODS[method as MachineMethodName].result;
  /** What the host makes of a result: the schema's output, or nothing when it does not pass. */
  const accepted = (result: unknown) => {
    const parsed = v.safeParse(schema, result);
    return parsed.success ? (parsed.output as unknown) : undefined;
  };
  if (roll < 0.4) {
    sentResult = accepted(valid);
    reply = encodeChannelMessage({ t: 'res', id: request.id, result: valid });
  } else if (roll < 0.7) {
    reply = k.mutate(encodeChannelMessage({ t: 'res', id: request.id, result: valid }));
    const decoded = decodeChannelMessage(reply);
    if (decoded?.t === 'res' && decoded.id === request.id && 'result' in decoded) sentResult = accepted(decoded.result);
  } else if (roll < 0.85) {
    const error: ProtocolError = {
      code: k.pick(['io', 'busy', 'outside-root', 'timeout', 'revoked', 'internal']),
      message: 'no',
    };
    reply = encodeChannelMessage({ t: 'res', id: request.id, error });
  } else {
    // Addressed to a call that does not exist, then a real answer.
    reply = encodeChannelMessage({ t: 'res', id: request.id + 1 + k.int(5), result: valid });
  }
  link.send(reply);
  await settle();
  if (!ended) {
    // What was sent did not answer it: a plain refusal does.
    link.send(encodeChannelMessage({ t: 'res', id: request.id, error: { code: 'io', message: 'no' } }));
    await settle();
  }
  if (!ended) {
    link.end.close(1000, 'fuzz: the call never ended');
    await settle(4);
  }
  await Promise.race([running, settle()]);
  if (!ended) return k.fail(`${method}: the host's call never ended, even when its link closed`);
  if (!outcome) return;
  k.count(`machine-link:call-${outcome.ok ? 'ok' : outcome.error.code}`);
  if (!outcome.ok) {
    if (!EXEC_CODES.has(outcome.error.code))
      k.fail(`${method}: failed with ${outcome.error.code}, not an execution code`);
    return;
  }
  if (sentResult === undefined && method !== 'proc.spawn') {
    return k.fail(`${method}: the host took an answer the machine never gave it`);
  }
  const value = method === 'fs.realPath' || method === 'fs.checkFolder' ? { path: outcome.value } : outcome.value;
  if (method !== 'proc.spawn' && JSON.stringify(value) !== JSON.stringify(sentResult)) {
    k.fail(`${method}: the host's call ended with something other than the machine's answer`);
  }
  if (method === 'proc.spawn' && outcome.ok) (outcome.value as { kill(): void }).kill();
}

/** The host's calls on a machine context, each named by its protocol method. */
function pickCall(k: FuzzKit, context: RemoteMachineContext): [string, () => Promise<CallOutcome>] {
  const signal = new AbortController().signal;
  const calls: [string, () => Promise<CallOutcome>][] = [
    ['fs.read', () => context.readFile('/srv/share', 'a.txt', 4096)],
    ['fs.write', () => context.writeFile('/srv/share', 'a.txt', 'x')],
    ['fs.list', () => context.listDir('/srv/share', '.', 100)],
    ['fs.realPath', () => context.realPath('/srv/share', 'a.txt')],
    ['fs.checkFolder', () => context.checkFolder('/srv/share')],
    [
      'fs.search',
      () => context.search('/srv/share', { pattern: 'x', regex: false, caseSensitive: true, maxResults: 10 }),
    ],
    ['fs.listDirs', () => context.listDirs()],
    [
      'exec.run',
      () => context.exec({ command: 'make', cwd: '/srv/share', timeoutMs: 1000, maxOutputBytes: 100, signal }),
    ],
    ['proc.spawn', () => context.spawn({ command: { program: 'make', args: [] }, cwd: '/srv/share' })],
    ['tasks.list', () => context.listTasks()],
  ];
  return k.pick(calls);
}
