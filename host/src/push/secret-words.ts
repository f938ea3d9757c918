import type { Range } from './secret-shapes.js';

/**
 * Secrets given to a program as its arguments, found word by word: a command line is cut into
 * commands (at newlines, `;`, `|`, `&`, parentheses) and words (quotes kept together), and each
 * word is checked against
 * - any flag whose name says it holds a secret (`--password`, `--access-token`,
 *   `--client-secret`, `-api-key`, …), its value after `=` or the next word;
 * - the short flags of the programs known to take a password on the command line
 *   (`curl -u user:pass`, `mysql -pPASS`, `sshpass -p`, `redis-cli -a`, …), once that program has
 *   been named in the same command (so `sudo mysql -pX` and `env mysql -pX` count too).
 * Linear: every character is looked at a bounded number of times.
 */

interface Word {
  start: number;
  end: number;
  text: string;
}

/** How a short flag takes its value: glued to it (`-pPASS`), the next word, or either. */
type Takes = 'glued' | 'next' | 'either';

interface ProgramRule {
  programs: readonly string[];
  flags: readonly string[];
  takes: Takes;
  /** Mask only what follows this in the value (`user:pass` → after `:`). */
  after?: string;
  /** Only a value that starts with this, masked after it (`pass:secret`). */
  prefix?: string;
  /** Only when this word appears in the command too (`docker login`). */
  with?: string;
}

const MYSQL = ['mysql', 'mysqldump', 'mysqladmin', 'mysqlimport', 'mysqlshow', 'mysqlcheck', 'mariadb', 'mariadb-dump'];
const LDAP = ['ldapsearch', 'ldapadd', 'ldapmodify', 'ldapdelete', 'ldapwhoami', 'ldappasswd', 'ldapcompare'];
const MONGO = ['mongo', 'mongosh', 'mongodump', 'mongorestore', 'mongoexport', 'mongoimport'];

const PROGRAM_RULES: readonly ProgramRule[] = [
  { programs: ['curl'], flags: ['-u', '-U', '--user', '--proxy-user'], takes: 'either', after: ':' },
  { programs: MYSQL, flags: ['-p'], takes: 'glued' },
  { programs: ['sshpass'], flags: ['-p'], takes: 'either' },
  { programs: ['redis-cli', 'valkey-cli', 'keydb-cli'], flags: ['-a'], takes: 'either' },
  { programs: ['docker', 'podman', 'nerdctl', 'helm', 'buildah', 'skopeo', 'oras'], flags: ['-p'], takes: 'either', with: 'login' }, // prettier-ignore
  { programs: LDAP, flags: ['-w'], takes: 'either' },
  { programs: ['smbclient', 'rpcclient', 'smbmap'], flags: ['-U', '--user'], takes: 'either', after: '%' },
  { programs: ['openssl'], flags: ['-passin', '-passout', '-pass', '-k'], takes: 'next', prefix: 'pass:' },
  { programs: ['sqlcmd', 'bcp', 'zip', 'unzip'], flags: ['-P'], takes: 'either' },
  { programs: ['7z', '7za', '7zz'], flags: ['-p'], takes: 'glued' },
  { programs: MONGO, flags: ['-p'], takes: 'either' },
];

/** Parts of a flag's name that say its value is a secret (`--access-token`, `--db-password`). */
const SECRET_NAME =
  /^-{1,2}(?:[a-z0-9]+[-_])*(?:pass|password|passwd|passphrase|pwd|secret|token|apikey|api[-_]key|access[-_]key|secret[-_]key|auth[-_]key|credentials?)(?:[-_][a-z0-9]+)*$/i;
/** …unless it ends by saying the value is where to find the secret, or no value at all. */
const NOT_THE_SECRET = /[-_](?:file|path|stdin|env|dir|prompt|command|cmd|helper|type|method|length|store|id)$/i;
/** Longer words are not flag names (and a long hostile one is not run through SECRET_NAME). */
const MAX_FLAG_NAME = 64;

/** The rules of each program, by its name. */
const RULES_OF = new Map<string, ProgramRule[]>();
for (const rule of PROGRAM_RULES)
  for (const program of rule.programs) RULES_OF.set(program, [...(RULES_OF.get(program) ?? []), rule]);

export function secretArguments(text: string): Range[] {
  const ranges: Range[] = [];
  for (const command of commands(text)) {
    const texts = new Set(command.map((w) => w.text));
    // The rules of the programs named so far in this command.
    const active = new Set<ProgramRule>();
    for (let i = 0; i < command.length; i++) {
      const word = command[i]!;
      if (!word.text.startsWith('-')) {
        for (const rule of RULES_OF.get(baseName(word.text)) ?? [])
          if (rule.with === undefined || texts.has(rule.with)) active.add(rule);
        continue;
      }
      const next = command[i + 1];
      const found = [namedFlag(word, next), ...[...active].map((rule) => programFlag(rule, word, next))];
      for (const range of found) if (range) ranges.push(range);
    }
  }
  return ranges;
}

/** `--secret-ish=value` or `--secret-ish value`. */
function namedFlag(word: Word, next: Word | undefined): Range | undefined {
  const eq = word.text.indexOf('=');
  const name = eq < 0 ? word.text : word.text.slice(0, eq);
  if (name.length > MAX_FLAG_NAME || !SECRET_NAME.test(name) || NOT_THE_SECRET.test(name)) return undefined;
  if (eq >= 0) return value(word, eq + 1);
  return next && !next.text.startsWith('-') ? value(next, 0) : undefined;
}

function programFlag(rule: ProgramRule, word: Word, next: Word | undefined): Range | undefined {
  for (const flag of rule.flags) {
    let target: Word | undefined;
    let from = 0;
    if (word.text === flag && rule.takes !== 'glued') target = next;
    else if (word.text.startsWith(`${flag}=`) && flag.startsWith('--')) [target, from] = [word, flag.length + 1];
    else if (
      word.text.length > flag.length &&
      word.text.startsWith(flag) &&
      !flag.startsWith('--') &&
      rule.takes !== 'next'
    )
      [target, from] = [word, flag.length];
    if (!target) continue;
    const text = target.text.slice(from);
    if (rule.prefix !== undefined)
      return text.startsWith(rule.prefix) ? value(target, from + rule.prefix.length) : undefined;
    if (rule.after !== undefined) {
      const at = text.indexOf(rule.after);
      return at < 0 ? undefined : value(target, from + at + 1);
    }
    return value(target, from);
  }
  return undefined;
}

/** The range of `word` from `from` (in its text) to its end, quotes at either end left out. */
function value(word: Word, from: number): Range | undefined {
  let start = word.start + from;
  let end = word.end;
  const raw = (at: number) => word.text.charAt(at - word.start);
  if (raw(start) === '"' || raw(start) === "'") start++;
  if (end > start && (raw(end - 1) === '"' || raw(end - 1) === "'")) end--;
  return end > start ? [start, end] : undefined;
}

/** `/usr/bin/mysql` → `mysql`; quotes dropped. */
function baseName(text: string): string {
  const bare = text.replace(/["']/g, '');
  return bare.slice(bare.lastIndexOf('/') + 1);
}

/** Characters that end a command (outside quotes). */
const SEPARATORS = new Set(['\n', ';', '|', '&', '(', ')']);
const BLANKS = new Set([' ', '\t', '\r']);

/** The text cut into commands, each a list of words with their places in the text. */
export function commands(text: string): Word[][] {
  const out: Word[][] = [];
  let current: Word[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (SEPARATORS.has(c)) {
      if (current.length > 0) out.push(current);
      current = [];
      i++;
    } else if (BLANKS.has(c)) {
      i++;
    } else {
      const start = i;
      while (i < text.length) {
        const d = text[i]!;
        if (BLANKS.has(d) || SEPARATORS.has(d)) break;
        if (d === '\\') i += 2;
        else if (d === '"' || d === "'") {
          const close = text.indexOf(d, i + 1);
          i = close < 0 ? text.length : close + 1;
        } else i++;
      }
      i = Math.min(i, text.length);
      current.push({ start, end: i, text: text.slice(start, i) });
    }
  }
  if (current.length > 0) out.push(current);
  return out;
}
