// The typed dispatch is runtime-neutral and lives in shared-protocol, so a machine serves its link
// with it too; the host's handler files import it from here.
export type { Dispatch, DispatchOptions, Handler, Handlers, MethodEntry, MethodTable } from '@tether/shared-protocol';
export { createDispatch } from '@tether/shared-protocol';
