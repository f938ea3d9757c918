import * as v from 'valibot';

/** Small schema pieces shared by the method and event families. */

export const Id = v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.regex(/^[A-Za-z0-9_.:-]+$/));
export const Timestamp = v.pipe(v.number(), v.integer(), v.minValue(0));
export const Seq = v.pipe(v.number(), v.integer(), v.minValue(0));
export const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
export const Path = v.pipe(v.string(), v.minLength(1), v.maxLength(4096));
export const Name = v.pipe(v.string(), v.maxLength(256));
export const Empty = v.object({});
