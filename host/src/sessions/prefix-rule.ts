import { programStart } from './command-wrappers.js';

/**
 * "Allow for this session every command that starts with …": what a prefix may be, and which
 * commands it covers. A prefix allows more than the command the person saw, so it is held to a
 * few rules:
 *
 * - It names a program and at least one argument (`git log`, not `git`): a program alone would let
 *   its arguments do anything (`git -c core.pager=…`). Leading `NAME=value` assignments and
 *   wrappers that run the command after them (`env`, `sudo`, `timeout 60`, `npx`: command-wrappers.ts)
 *   never count as the program, and a wrapper given options of its own (`nice -n 10`) makes no prefix.
 * - It ends where a word of the command ends (`npm test` does not cover `npm testing`).
 * - It does not end with an option from `ARGUMENTS_THAT_RUN_CODE` (`sh -c`), whose value would
 *   then be whatever follows (one with its value attached, `--node-options=…`, is fine).
 *
 * A command it covers goes on after the prefix only with plain words (`plainWordProblem`): no
 * option at all, no shell syntax, and each word, taken as a path where the command runs, inside
 * the session folder by real path and outside the private folders, and none a destination: a word
 * that names nothing there and looks like a host, a URL, `user@host` or a package spec
 * (`127.0.0.2/…`, `evil.example`, `name@1.2`, `user/repo`) asks. A list of bad options can never
 * be complete (`go test -toolexec=…`, `rg --pre=…`, `tar --use-compress-program=…`), and a word that
 * names a file can name a secret (`cat README.md ~/.ssh/id_ed25519`), so the rule is turned around:
 * what is covered is what is known to be plain, and anything else asks.
 */

/** One word of a command line after shell quoting is undone. */
export interface ShellWord {
  /** The word as the program receives it (quotes removed). */
  text: string;
}

/**
 * Splits a prefix into words the way a POSIX shell would for the characters a prefix may hold
 * (single and double quotes; `\`, `$` and backticks never get this far). Undefined when a quote
 * is left open.
 */
export function shellWords(text: string): ShellWord[] | undefined {
  const words: ShellWord[] = [];
  let current: ShellWord | undefined;
  let quote: "'" | '"' | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current!.text += char;
      continue;
    }
    if (char === ' ' || char === '\t') {
      if (current) words.push(current);
      current = undefined;
      continue;
    }
    current ??= { text: '' };
    if (char === "'" || char === '"') quote = char;
    else current.text += char;
  }
  if (quote) return undefined;
  if (current) words.push(current);
  return words;
}

/** A word that lets a command run code it names, with the reason it is on the list. */
export interface CodeRunningArgument {
  /** How it looks, for people: `-c`, `--eval[=…]`. */
  pattern: string;
  why: string;
  matches(word: string): boolean;
}

/** The letters after a single dash (`-Bc'code'` → `Bc`), or undefined for anything else. */
function shortLetters(word: string): string | undefined {
  const match = /^-([A-Za-z]+)/.exec(word);
  return match && !word.startsWith('--') ? match[1] : undefined;
}

/**
 * A short option that takes code or a file to run as its value. It counts alone (`-c`), with its
 * value attached (`-cCODE`: getopt reads the rest of the word as the value), and inside a short
 * cluster (`-ec`, `-Bc`: up to three letters, so that single-dash long options such as find's
 * `-name` or `-newer` do not count).
 */
function shortOption(letter: string, why: string): CodeRunningArgument {
  return {
    pattern: `-${letter}`,
    why,
    matches: (word) => {
      const letters = shortLetters(word);
      return letters !== undefined && (letters[0] === letter || (letters.length <= 3 && letters.includes(letter)));
    },
  };
}

/** A short option that counts only as a whole word: its letter is too common inside clusters. */
function exactOption(option: string, why: string): CodeRunningArgument {
  return { pattern: option, why, matches: (word) => word === option };
}

/**
 * A long option, alone or with `=value`, and any abbreviation of it three letters or longer: git
 * and npm accept an unambiguous start of a long option (`--upload` for `--upload-pack`).
 */
function longOption(names: string[], why: string): CodeRunningArgument {
  return {
    pattern: names.map((n) => `--${n}[=…]`).join(', '),
    why,
    matches: (word) => {
      if (!word.startsWith('--')) return false;
      const name = word.slice(2).split('=')[0]!;
      return names.some((n) => n === name || (name.length >= 3 && n.startsWith(name)));
    },
  };
}

/**
 * Options a prefix may not end with (`prefixProblem`): each lets the program run code (or a
 * program, or another project's scripts) named by the word after it, which the prefix would leave
 * open. After a prefix no option is covered at all (`plainWordProblem`); this list only keeps a
 * prefix from ending where its next word would be code.
 */
export const ARGUMENTS_THAT_RUN_CODE: readonly CodeRunningArgument[] = [
  shortOption('c', '`sh -c`, `bash -c`, `python -c` run their argument as code; `git -c core.pager=…` sets config that runs programs'),
  shortOption('e', '`node -e`, `perl -e`, `ruby -e` run their argument as code; GNU `sed -e` scripts can run a shell (`e` command)'),
  shortOption('C', '`git -C`, `make -C` work in another folder, whose own config or Makefile decides what runs'),
  exactOption('-E', '`perl -E` runs its argument as code'),
  exactOption('-r', '`node -r` and `ruby -r` load a module before the program; `php -r` runs its argument as code'),
  exactOption('-p', '`node -p` evaluates its argument and prints the result'),
  exactOption('-x', '`git rebase -x` runs a command after each commit'),
  exactOption('-u', '`git clone -u` / `git fetch -u` name the upload-pack program to run'),
  longOption(['eval', 'print'], 'node (and tsx, deno) evaluate the argument as code'),
  longOption(['require', 'import', 'loader', 'experimental-loader'], 'node loads the named module before the program runs'),
  longOption(['node-options'], 'npm passes it to every node it starts (`--node-options=--import=./evil.mjs`)'),
  longOption(['script-shell'], 'npm runs package scripts with the named program'),
  longOption(['prefix'], "npm runs another folder's package.json scripts"),
  longOption(['config', 'userconfig', 'globalconfig', 'config-env'], "a config file is code for many tools (vitest, vite, webpack, eslint), sets npm's script-shell, or (git) sets config from the environment"),
  longOption(['exec', 'exec-path', 'upload-pack', 'receive-pack', 'extcmd'], 'git runs the named command or programs from the named folder'),
  longOption(['git-dir', 'work-tree', 'directory'], 'git and make work on another repository or folder, whose config or Makefile decides what runs'),
  exactOption('-exec', 'find runs the command for every match'),
  exactOption('-execdir', 'find runs the command for every match'),
  exactOption('-ok', 'find runs the command for every match it is allowed'),
  exactOption('-okdir', 'find runs the command for every match it is allowed'),
  exactOption('-delete', 'find deletes every match'),
  {
    pattern: 'NAME=value',
    why: 'make takes variable overrides (`SHELL=`, `CC=`) that choose what runs; ssh `-o ProxyCommand=…` and `git -c name=value` take the same form',
    matches: (word) => /^[A-Za-z_][A-Za-z0-9_.-]*=/.test(word),
  },
]; // prettier-ignore

export function runsCode(word: string): CodeRunningArgument | undefined {
  return ARGUMENTS_THAT_RUN_CODE.find((a) => a.matches(word));
}

/** Why `prefix` cannot be a prefix rule, or undefined when it can (given it starts the command). */
export function prefixProblem(prefix: string): string | undefined {
  const words = shellWords(prefix);
  if (!words) return 'a prefix may not leave a quote open';
  const program = programStart(words.map((w) => w.text));
  if (typeof program !== 'number') return program.problem;
  if (words.length - program < 2)
    return 'a prefix needs the program and at least one argument (`git log`, not `git`; `timeout 60 npm test`, not `timeout 60`): a program name alone, or a wrapper such as `timeout`, `sudo` or `npx`, would let the words after it run anything';
  // `sh -c` leaves its code to whatever follows; `CC=gcc` or `--node-options=…` carries its value.
  const lastWord = words[words.length - 1]!.text;
  const last = lastWord.includes('=') ? undefined : runsCode(lastWord);
  if (last) return `a prefix may not end with ${last.pattern}: whatever follows it would run (${last.why})`;
  return undefined;
}

/** Words after a prefix a rule covers at most; a longer command asks (each word is checked as a path). */
export const MAX_COVERED_WORDS = 64;

/**
 * What a covered word may hold: letters, digits and `_ . / @ % , + -`, starting with a letter, a
 * digit, `_`, `.` or `/`. Nothing a shell treats specially (quotes, `$`, backticks, globs, braces,
 * `~`, `=`, redirections, `;|&`, backslashes, whitespace), no `:` (a URL, `host:path`, git's
 * `ext::`), and nothing beyond ASCII that could look like something else.
 */
const PLAIN_WORD = /^[A-Za-z0-9_./][A-Za-z0-9_./@%,+-]*$/;

/** Why `word` is not a plain word a prefix rule may cover, or undefined when it is. */
export function plainWordProblem(word: string): string | undefined {
  if (word.startsWith('-') || word.startsWith('+')) return 'it is an option';
  if (word.startsWith('@')) return 'it names a file of options (`gcc @file`)';
  if (!PLAIN_WORD.test(word)) return 'it holds shell syntax or a character a rule does not cover';
  if (word.split('/').includes('..')) return 'it steps out of a folder with `..`';
  return undefined;
}

/**
 * Where a word, taken as a path where the command runs, lies: `present` (it exists inside the
 * session folder, outside the private folders, by real path), `absent` (it would lie there but does
 * not exist yet) or `outside`.
 */
export type WordPlace = 'present' | 'absent' | 'outside';

export type WordInFolder = (path: string) => Promise<WordPlace>;

/** An IPv4 address as `inet_aton` reads one (`127.0.0.2`, `127.1`, `0x7f.1`): a host to any program. */
const IPV4_LIKE = /^(?:\d+|0x[0-9a-f]*)(?:\.(?:\d+|0x[0-9a-f]*)){1,3}\.?$/i;
/** Dot-separated labels ending in a letter label (`evil.example`, `README.md`): a host name, or a file name. */
const HOST_LIKE = /^(?:[A-Za-z0-9-]+\.)+[A-Za-z][A-Za-z0-9-]*\.?$/;

/**
 * Why a plain word that names nothing in the session folder would be a destination rather than a
 * file to be made: a host or URL (`127.0.0.2/…`, `evil.example/…`), `user@host`, a package spec
 * (`name@version`, `user/repo`). Undefined when it reads as a new file. A word naming something in
 * the folder is a path there (`README.md`, `src/new.test.ts` where `src` exists); an IPv4 address
 * is a host whatever the folder holds.
 */
async function destination(word: string, place: WordPlace, inFolder: WordInFolder): Promise<string | undefined> {
  const slash = word.indexOf('/');
  const first = slash === -1 ? word : word.slice(0, slash);
  if (IPV4_LIKE.test(first)) return 'it names an IP address';
  if (place === 'present' || first === '') return undefined;
  if (word.includes('@')) return 'it looks like `user@host` or a package version (`name@1.2`)';
  if (HOST_LIKE.test(first)) return 'it looks like a host name and names nothing in the session folder';
  if (slash !== -1 && (await inFolder(first)) !== 'present') {
    return 'its first step is no folder of the session folder, so it reads as a host or a package (`user/repo`)';
  }
  return undefined;
}

/**
 * Whether `command` starts with `prefix` and goes on only with plain words that `inFolder` finds
 * inside the session folder, none of them a destination.
 */
export async function prefixCovers(prefix: string, command: string, inFolder: WordInFolder): Promise<boolean> {
  if (prefixProblem(prefix) !== undefined) return false;
  if (command === prefix) return true;
  if (!command.startsWith(prefix)) return false;
  const rest = command.slice(prefix.length);
  if (rest[0] !== ' ' && rest[0] !== '\t') return false;
  const words = rest.split(/[ \t]+/).filter((word) => word !== '');
  if (words.length > MAX_COVERED_WORDS) return false;
  if (words.some((word) => plainWordProblem(word) !== undefined)) return false;
  for (const word of words) {
    const place = await inFolder(word);
    if (place === 'outside' || (await destination(word, place, inFolder)) !== undefined) return false;
  }
  return true;
}
