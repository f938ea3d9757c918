/**
 * Parts of an action that look like secrets, masked for the lock screen: a notification is shown
 * to whoever holds the phone, and passes through the push service (encrypted, but kept on a
 * device that may not be locked). The app, once opened and connected, shows the action whole.
 *
 * Masked: the credentials of an `Authorization:` (or `Proxy-Authorization:`) header, a bearer or
 * basic token, the value of `password=`, `passwd=`, `pwd=`, `secret=`, `token=`, `api_key=`,
 * `apikey=`, `access_key=` (and the same with `:` or as a `--flag value`), userinfo in a URL
 * (`https://user:pass@`), and any long run of token characters that looks random. A masked action
 * is never approvable from the lock screen: what the person would approve is not what is shown.
 *
 * Linear in the action's length: every pattern is a plain scan without nested repetition, since
 * the action comes from a model and is hostile.
 */

export const MASK = '•••';

/** A run of token characters at least this long is checked for randomness. */
export const MIN_RANDOM_RUN = 24;
/** Shannon entropy (bits per character) above which such a run counts as random: hex is at most
 * 4, base64 at most 6; English words and paths run well under 3.5 at these lengths. */
const RANDOM_BITS_PER_CHAR = 3.5;

const NAMED_VALUE =
  /((?:pass(?:word|wd)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|client[_-]?secret)["']?\s*[=:]\s*["']?|--(?:pass(?:word)?|token|secret|api-key)(?:=|\s+))([^\s"'&;]+)/gi;
const AUTH_HEADER = /((?:proxy-)?authorization\s*:\s*(?:(?:bearer|basic|token|digest)\s+)?)([^\s"']+)/gi;
const BEARER = /(\b(?:bearer|basic)\s+)([A-Za-z0-9._~+/=-]{8,})/gi;
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]+:)([^\s/@]+)(@)/gi;
const TOKEN_RUN = /[A-Za-z0-9_+/=.-]{24,}/g;

export interface MaskedAction {
  text: string;
  /** True when anything was masked. */
  masked: boolean;
}

export function maskSecrets(action: string): MaskedAction {
  let masked = false;
  const hide = (before: string, after = ''): string => {
    masked = true;
    return `${before}${MASK}${after}`;
  };
  let text = action
    .replace(AUTH_HEADER, (_all: string, before: string) => hide(before))
    .replace(BEARER, (all: string, before: string, secret: string) => (secret.startsWith(MASK) ? all : hide(before)))
    .replace(NAMED_VALUE, (_all: string, before: string) => hide(before))
    .replace(URL_USERINFO, (_all: string, before: string, _secret: string, at: string) => hide(before, at));
  text = text.replace(TOKEN_RUN, (run) => {
    if (!looksRandom(run)) return run;
    masked = true;
    return MASK;
  });
  return { text, masked };
}

/**
 * A run that looks like a key rather than a word or a path: mixes letters and digits, and its
 * characters are spread (entropy per character). Paths (`/usr/local/lib/...`) and long words fail
 * one or the other.
 */
export function looksRandom(run: string): boolean {
  if (run.length < MIN_RANDOM_RUN) return false;
  if (!/[0-9]/.test(run) || !/[A-Za-z]/.test(run)) return false;
  // A path or a dotted name is made of words, each short: not a key.
  if (run.split(/[/.]/).every((part) => part.length < 16)) return false;
  return entropy(run) >= RANDOM_BITS_PER_CHAR;
}

function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
