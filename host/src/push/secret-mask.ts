import type { Range } from './secret-shapes.js';
import { knownShapes, randomRuns } from './secret-shapes.js';
import { secretArguments } from './secret-words.js';

/**
 * Parts of a text that look like secrets, masked for the lock screen: a notification is shown to
 * whoever holds the phone, and passes through the push service (encrypted, but kept on a device
 * that may not be locked). The app, once opened and connected, shows the action whole. Every text
 * field of every push goes through here (push-notifier.ts), the session's title included: it is
 * the first line of the task, where people paste tokens too.
 *
 * Masked:
 * - the credentials of an `Authorization:`, `Proxy-Authorization:`, `Cookie:` or `X-…-Token:` /
 *   `X-…-Key:` header, and a bearer or basic token;
 * - the value of `password=`, `passwd=`, `pwd=`, `secret=`, `token=`, `api_key=`, `access_key=`,
 *   `client_secret=`, `signature=`, `credential=` (also with `:` and in JSON), and of a password
 *   written out in words ("password hunter2", "the password is swordfish");
 * - userinfo in a URL (`https://user:pass@`);
 * - secrets given as arguments (secret-words.ts): any `--…password|token|secret|api-key…` flag,
 *   `curl -u user:pass`, `mysql -pPASS`, `sshpass -p`, `redis-cli -a`, `docker login -p`, …;
 * - the well-known token formats, private key blocks, and long random-looking runs
 *   (secret-shapes.ts).
 * What would be approved from a lock screen must be what is shown, so a text in which anything was
 * masked is never approvable there (lock-screen-verdict.ts).
 *
 * Linear in the text's length: every pattern is a plain scan without nested repetition, since the
 * text comes from a model and is hostile.
 */

export const MASK = '•••';

export interface MaskedText {
  text: string;
  /** True when anything was masked. */
  masked: boolean;
}

const NAMED_VALUE =
  /(?:pass(?:word|wd)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|client[_-]?secret|signature|credentials?)["']?[ \t]*[=:][ \t]*["']?([^\s"'&;,]+)/dgi;
/** A header's name before its colon: at most 64 characters, so no hostile run is scanned twice. */
const HEADER_NAME = /\b[a-z][a-z0-9-]{0,63}(?=[ \t]*:)/gi;
const SECRET_HEADER =
  /^(?:(?:proxy-)?authorization|cookie|api-key|private-token|x-.*(?:key|token|secret|auth|signature).*)$/i;
/** A header's value from its colon: the scheme word kept, the rest to the quote or line's end. */
const HEADER_VALUE = /[ \t]*:[ \t]*(?:(?:bearer|basic|token|digest|negotiate)[ \t]+)?([^"'\n]+)/diy;
const BEARER = /\b(?:bearer|basic)[ \t]+([A-Za-z0-9._~+/=-]{8,})/dgi;
const URL_USERINFO = /:\/\/[^\s/@:]+:([^\s/@]+)@/dg;
/** A password in words: masked after "is", or when it does not read as a plain word. */
const PASSWORD_WORDS = /\b(?:password|passwd|passphrase|pwd)[ \t]+(is[ \t]+)?([^\s"']+)/dgi;

export function maskSecrets(text: string): MaskedText {
  const ranges: Range[] = [
    ...groups(text, NAMED_VALUE),
    ...secretHeaders(text),
    ...groups(text, BEARER),
    ...groups(text, URL_USERINFO),
    ...passwordsInWords(text),
    ...secretArguments(text),
    ...knownShapes(text),
    ...randomRuns(text),
  ];
  return ranges.length === 0 ? { text, masked: false } : { text: applyMask(text, ranges), masked: true };
}

/** The ranges of each match's last group. */
function groups(text: string, pattern: RegExp): Range[] {
  const out: Range[] = [];
  for (const match of text.matchAll(pattern)) {
    const at = match.indices?.[match.length - 1];
    if (at) out.push(at);
  }
  return out;
}

function secretHeaders(text: string): Range[] {
  const out: Range[] = [];
  for (const name of text.matchAll(HEADER_NAME)) {
    if (!SECRET_HEADER.test(name[0])) continue;
    HEADER_VALUE.lastIndex = name.index + name[0].length;
    const at = HEADER_VALUE.exec(text)?.indices?.[1];
    if (at) out.push(at);
  }
  return out;
}

function passwordsInWords(text: string): Range[] {
  const out: Range[] = [];
  for (const match of text.matchAll(PASSWORD_WORDS)) {
    const [, is, word] = match;
    const at = match.indices?.[2];
    // "password reset" is prose; "password hunter2" and "password is swordfish" are not.
    if (at && word && (is !== undefined || /[^A-Za-z]|.[A-Z]/.test(word))) out.push(at);
  }
  return out;
}

/** `text` with each of `ranges` (overlapping or not, in any order) replaced by one MASK. */
function applyMask(text: string, ranges: Range[]): string {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [start, end] of sorted) {
    if (end <= at) continue;
    if (start >= at) out += text.slice(at, start) + MASK;
    at = end;
  }
  return out + text.slice(at);
}
