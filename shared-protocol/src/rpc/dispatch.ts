import * as v from 'valibot';
import type { ErrorCode, ProtocolError, Result } from '../errors.js';
import { protocolError } from '../errors.js';
import { describeIssues } from '../schema-issues.js';

/** One entry of a method table: the schemas of its params and of its result. */
export interface MethodEntry {
  params: v.GenericSchema;
  result: v.GenericSchema;
}

export type MethodTable = Readonly<Record<string, MethodEntry>>;

type Awaitable<T> = T | Promise<T>;

/** A handler: params as its schema outputs them, a result its schema accepts. */
export type Handler<E extends MethodEntry, Caller> = (
  params: v.InferOutput<E['params']>,
  caller: Caller,
) => Awaitable<Result<v.InferInput<E['result']>>>;

/** A handler for every method of the table. */
export type Handlers<T extends MethodTable, Caller> = { [M in keyof T]: Handler<T[M], Caller> };

export interface DispatchOptions<T extends MethodTable, Caller> {
  /** Checked once the method is known, before its params are read (a device's scopes). */
  authorize?: (method: keyof T & string, caller: Caller) => ProtocolError | undefined;
  /** Every refusal and failure, under `request:<code>`. */
  count?: (reason: string) => void;
}

export type Dispatch<Caller> = (method: string, params: unknown, caller: Caller) => Promise<Result<unknown>>;

/**
 * Runs a request through the checks every request passes, for any method table (the device
 * methods, the control socket, the machine link): a known method, the caller's right to it, params that match the
 * schema, a handler that exists; then the result is checked against its schema before it leaves.
 * A handler that throws is a bug: the caller gets `internal`, the server stays up. Methods absent
 * from `handlers` answer `unsupported`. Runtime-neutral: the host and a machine both serve with it.
 */
export function createDispatch<T extends MethodTable, Caller>(
  table: T,
  handlers: Partial<Handlers<T, Caller>>,
  options: DispatchOptions<T, Caller> = {},
): Dispatch<Caller> {
  const refuse = (code: ErrorCode, message: string): Result<unknown> => {
    options.count?.(`request:${code}`);
    return { ok: false, error: protocolError(code, message) };
  };
  return async (method, params, caller) => {
    if (!Object.prototype.hasOwnProperty.call(table, method)) {
      return refuse('unknown-method', `unknown method ${method.slice(0, 100)}`);
    }
    const name = method as keyof T & string;
    const denied = options.authorize?.(name, caller);
    if (denied) return refuse(denied.code, denied.message);
    const spec = table[name]!;
    const parsed = v.safeParse(spec.params, params);
    if (!parsed.success) return refuse('invalid-params', describeIssues(parsed.issues));
    // The table and the handlers are indexed by the same name: this is the one place the
    // compiler cannot follow that, so the handler is looked up as the general shape.
    const handler = handlers[name] as Handler<MethodEntry, Caller> | undefined;
    if (!handler) return refuse('unsupported', `${method} is not offered here yet`);
    try {
      const result = await handler(parsed.output, caller);
      if (!result.ok) {
        options.count?.(`request:${result.error.code}`);
        return result;
      }
      const checked = v.safeParse(spec.result, result.value);
      return checked.success ? result : refuse('internal', `${method} produced an invalid result`);
    } catch (error) {
      return refuse('internal', error instanceof Error ? error.message : String(error));
    }
  };
}
