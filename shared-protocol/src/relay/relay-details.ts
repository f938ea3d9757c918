import * as v from 'valibot';
import { MAX_RELAY_URL, RelayUrlListSchema } from './relay-list.js';

/** How a paired device reaches its host through a relay: sent sealed in the pair reply, kept by the app. */
export const RelayDetailsSchema = v.object({
  /** The relay the device is to try first. */
  url: v.pipe(v.string(), v.maxLength(MAX_RELAY_URL)),
  ticket: v.pipe(v.string(), v.maxLength(4096)),
  /** Every relay the host keeps, `url` among them (absent from hosts with one relay). */
  urls: v.optional(RelayUrlListSchema),
});

export type RelayDetails = v.InferOutput<typeof RelayDetailsSchema>;
