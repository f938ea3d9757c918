import * as v from 'valibot';

/**
 * A host may keep several relays (`tether start --relay A --relay B`): it links to one at a time and
 * moves to the next when its link drops. Devices learn the list at pairing and on every connect
 * (`host.info`) and try the relays in turn. A ticket names the host and the device, not a relay, so
 * one ticket is good at every relay in the list.
 */

/** Relays one host may name: enough for a spare in each of a few regions; a longer list only
 * makes a phone with no way through wait longer before it says so. */
export const MAX_RELAYS = 8;

/** Characters of one relay URL, as a pairing reply and `host.info` carry it. */
export const MAX_RELAY_URL = 2048;

/** The host's relays, most preferred first. */
export const RelayUrlListSchema = v.pipe(
  v.array(v.pipe(v.string(), v.maxLength(MAX_RELAY_URL))),
  v.minLength(1),
  v.maxLength(MAX_RELAYS),
);

/** Every relay a device may try for its host: the list when the host gave one, else the one URL. */
export function relayUrlsOf(details: { url: string; urls?: readonly string[] | undefined }): string[] {
  return details.urls && details.urls.length > 0 ? [...details.urls] : [details.url];
}
