import * as v from 'valibot';
import { ScopeSchema } from '../scopes.js';
import { Id, Name, Timestamp } from './common.js';

/** `devices.*`: the paired phones and tablets. */

export const DeviceInfoSchema = v.object({
  id: Id,
  label: Name,
  scopes: v.array(ScopeSchema),
  fingerprint: Name,
  createdAt: Timestamp,
  lastSeenAt: v.nullable(Timestamp),
  revoked: v.boolean(),
});

export type DeviceInfo = v.InferOutput<typeof DeviceInfoSchema>;

export const ListDevicesResult = v.object({ devices: v.array(DeviceInfoSchema) });
export const RevokeDeviceParams = v.object({ id: Id });
