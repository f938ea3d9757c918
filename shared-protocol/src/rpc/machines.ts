import * as v from 'valibot';
import { Id, Name, Path, Timestamp } from './common.js';

/** `machines.*`: other computers that lend the host their shell, files and terminals. */

export const MachineInfoSchema = v.object({
  id: Id,
  name: Name,
  status: v.picklist(['online', 'offline']),
  roots: v.array(Path),
  lastSeenAt: v.nullable(Timestamp),
});

export type MachineInfo = v.InferOutput<typeof MachineInfoSchema>;

export const ListMachinesResult = v.object({ machines: v.array(MachineInfoSchema) });
export const MachineListDirsParams = v.object({ machine: Name, path: v.optional(Path) });
