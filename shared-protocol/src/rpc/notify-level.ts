import * as v from 'valibot';

/**
 * When a session's devices are notified: `needs` (the default) when it waits for the person (an
 * approval, a question, a limit) or a run fails; `done` also when a run finishes; `off` never.
 */
export const NotifyLevelSchema = v.picklist(['needs', 'done', 'off']);
export type NotifyLevel = v.InferOutput<typeof NotifyLevelSchema>;
