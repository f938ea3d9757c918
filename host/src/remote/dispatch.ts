import type { ErrorCode, Result } from '@tether/shared-protocol';
import { METHODS, isMethodName, protocolError } from '@tether/shared-protocol';
import * as v from 'valibot';
import { describeIssues } from '../schema-issues.js';
import type { DeviceRecord } from '../store/device-store.js';
import type { DeviceConnection } from './device-connection.js';
import type { Counters } from './stats.js';

/** Who is calling: the device, and its live connection unless the call came as a one-shot. */
export interface Caller {
  device: DeviceRecord;
  connection?: DeviceConnection;
}

export type MethodHandler = (params: unknown, caller: Caller) => Result<unknown> | Promise<Result<unknown>>;
export type MethodHandlers = Partial<Record<string, MethodHandler>>;

/**
 * Runs one device request through the checks every request passes: a known method, the scope it
 * needs, params that match its schema, a host that offers it; then checks the result against its
 * schema before it leaves. Every refusal is counted under its code.
 */
export async function dispatch(
  method: string,
  params: unknown,
  caller: Caller,
  handlers: MethodHandlers,
  stats: Counters,
): Promise<Result<unknown>> {
  const refuse = (code: ErrorCode, message: string): Result<unknown> => {
    stats.add(`request:${code}`);
    return { ok: false, error: protocolError(code, message) };
  };
  if (!isMethodName(method)) return refuse('unknown-method', `unknown method ${method.slice(0, 100)}`);
  const spec = METHODS[method];
  if (spec.scope !== null && !caller.device.scopes.includes(spec.scope)) {
    return refuse('forbidden', `${method} needs the ${spec.scope} scope, which this device was not given`);
  }
  const parsed = v.safeParse(spec.params, params);
  if (!parsed.success) return refuse('invalid-params', describeIssues(parsed.issues));
  const handler = handlers[method];
  if (!handler) return refuse('unsupported', `this host does not offer ${method} yet`);
  try {
    const result = await handler(parsed.output, caller);
    if (!result.ok) {
      stats.add(`request:${result.error.code}`);
      return result;
    }
    const checked = v.safeParse(spec.result, result.value);
    return checked.success ? result : refuse('internal', `${method} produced an invalid result`);
  } catch (error) {
    return refuse('internal', error instanceof Error ? error.message : String(error));
  }
}
