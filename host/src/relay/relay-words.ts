import { CloseCode, RelayCloseCode } from '@tether/shared-protocol';

/** What a close of the link means, in words for the person at the computer. */
export function closeMessage(url: string, code: number, reason: string): string {
  switch (code) {
    case RelayCloseCode.Replaced:
      return `the relay at ${url} says a newer link for this host took over there: another \`tether start\` with this host's key may be running (or the relay says so falsely)`;
    case RelayCloseCode.AuthFailed:
      return `the relay at ${url} did not accept this host's signature`;
    case RelayCloseCode.TicketRefused:
    case RelayCloseCode.TicketExpired:
      return `the relay at ${url} refused this host's link (${code}${reason ? ` ${reason}` : ''})`;
    case CloseCode.VersionUnsupported:
      return `the relay at ${url} speaks another version of the relay protocol: update Tether or the relay`;
    case RelayCloseCode.GoingAway:
      return `the relay at ${url} is shutting down; relinking`;
    default:
      return `the link to ${url} closed (${code}${reason ? ` ${reason}` : ''}); relinking`;
  }
}

/** A relay's refusal, and what the link does about it: the others now, this one again later (or
 * sooner, when there is no other to go to). */
export function holdMessage(message: string, waitMs: number, others: boolean): string {
  return others
    ? `${message}; going on through the other relays, and asking this one again in ${duration(waitMs)} (sooner if none of them answers)`
    : `${message}; asking it again`;
}

/** `45 s`, `2 min`, `30 min`: a wait as a person reads it. */
export function duration(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}
