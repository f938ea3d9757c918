/**
 * Programs that run the words after them as a command: `timeout 60 sh x.sh` runs `sh`, `ssh host
 * ls` runs `ls` there, `npm exec pkg` runs a package. Such a wrapper is never a prefix rule's
 * program (prefix-rule.ts): a rule `timeout 60` would cover `timeout 60 sh evil.sh`, whose words
 * after the prefix are all plain. The program is the first word after the wrappers, their fixed
 * arguments and any `NAME=value` assignments.
 */

/** Wrappers by name, each with the number of arguments it takes before the command (a duration, a host). */
const WRAPPERS: ReadonlyMap<string, number> = new Map([
  ...[
    'env', 'sudo', 'doas', 'pkexec', 'runuser', 'command', 'builtin', 'exec', 'nice', 'nohup', 'time',
    'xargs', 'setsid', 'stdbuf', 'ionice', 'watch', 'unbuffer', 'rlwrap', 'strace', 'ltrace', 'valgrind',
    'firejail', 'proxychains', 'proxychains4', 'torsocks', 'tsocks', 'fakeroot', 'eatmydata', 'caffeinate',
    'systemd-run', 'xvfb-run', 'dbus-run-session', 'catchsegv', 'numactl', 'unshare', 'nsenter', 'linux32',
    'linux64', 'entr', 'parallel', 'npx', 'bunx', 'pnpx', 'uvx',
  ].map((name) => [name, 0] as const),
  // Each takes one argument before the command: a duration, a priority, a CPU mask, a lock file,
  // a root folder, a time, a group, an architecture, a host.
  ...['timeout', 'chrt', 'taskset', 'flock', 'chroot', 'faketime', 'sg', 'setarch', 'ssh'].map(
    (name) => [name, 1] as const,
  ),
]); // prettier-ignore

/** A program and a first argument that together run the command after them. */
const TWO_WORD_WRAPPERS: ReadonlySet<string> = new Set([
  'npm exec', 'npm x', 'pnpm exec', 'pnpm dlx', 'yarn exec', 'yarn dlx', 'bun x', 'pipx run', 'uv run',
  'poetry run', 'pipenv run', 'bundle exec', 'conda run',
]); // prettier-ignore

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Where the program starts in a command's words (an index), past wrappers, their fixed arguments
 * and assignments; or why that cannot be told: a wrapper given options of its own (`nice -n 10`,
 * `sudo -u root`) may take the next word as an option's value or as the program, and a rule must
 * not guess which.
 */
export function programStart(words: readonly string[]): number | { problem: string } {
  let at = 0;
  for (;;) {
    while (at < words.length && ASSIGNMENT.test(words[at]!)) at++;
    const word = words[at];
    if (word === undefined) return at;
    let wrapper: string;
    let fixed: number;
    if (at + 1 < words.length && TWO_WORD_WRAPPERS.has(`${word} ${words[at + 1]}`)) {
      wrapper = `${word} ${words[at + 1]}`;
      fixed = 0;
      at += 2;
    } else if (WRAPPERS.has(word)) {
      wrapper = word;
      fixed = WRAPPERS.get(word)!;
      at += 1;
    } else {
      return at;
    }
    for (let i = 0; i < fixed + 1 && at + i < words.length; i++) {
      if (words[at + i]!.startsWith('-')) {
        return {
          problem: `\`${wrapper}\` runs the command after it, and with options of its own which word is that command cannot be told: allow the exact command instead`,
        };
      }
    }
    at += fixed;
  }
}
