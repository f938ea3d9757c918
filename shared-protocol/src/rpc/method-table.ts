import type * as v from 'valibot';
import type { MethodTable } from './dispatch.js';

/** Whether `name` is a method of `table`: one of its own keys, never one Object's prototype has. */
export function isTableMethod<T extends MethodTable>(table: T, name: string): name is keyof T & string {
  return Object.prototype.hasOwnProperty.call(table, name);
}

/** A method's params as its schema outputs them. */
export type TableParams<T extends MethodTable, M extends keyof T> = v.InferOutput<T[M]['params']>;
/** A method's result as its schema outputs it. */
export type TableResult<T extends MethodTable, M extends keyof T> = v.InferOutput<T[M]['result']>;
