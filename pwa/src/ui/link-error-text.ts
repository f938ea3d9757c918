import type { ProtocolError } from '@tether/shared-protocol';

/** What to say about a pairing link that did not parse, by its code. */
export function linkErrorText(error: ProtocolError): string {
  switch (error.code) {
    case 'link-truncated':
      return 'The link is cut short. Copy or scan all of it.';
    case 'link-version':
      return 'This link comes from a newer Tether: update the app (reload it while online).';
    default:
      return 'That is not a Tether pairing link.';
  }
}
