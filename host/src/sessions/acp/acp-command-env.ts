import type { EnvVariable } from '@agentclientprotocol/sdk';

/**
 * The variables an ACP agent sets for a command it runs (`terminal/create`'s `env`). They change
 * what the command does as much as its words, so they are part of what the person allows: shown
 * with the command on every surface (`envText`), part of what a grant matches, and never covered
 * by a session rule (approval-policy.ts).
 *
 * Which may be set at all is turned around, as prefix rules were: a variable passes when it is on
 * the short list of those known to be inert (`INERT_VARIABLES`, each with the values it may take),
 * or when the person named it for that agent (`allowEnv` in agents.json); any other is refused
 * with the way to allow it. No list of variables that run code can be complete (`TAR_OPTIONS`,
 * `CC`, `CONFIG_SITE`, `RUSTFLAGS`, `GOENV`, `JAVA_OPTS`, `YARN_YARN_PATH`, `BUNDLE_GEMFILE`, … each
 * make some program run what the value names). The ones on `VARIABLES_THAT_LOAD_CODE` are refused
 * even when named (`BASH_ENV=./x.sh` runs `./x.sh` before `echo hello`): no approval could show
 * what they run.
 */

/** Variables one command may bring; more is refused (the machine's spawn takes no more either). */
export const MAX_AGENT_ENV = 256;

/** A POSIX variable name: anything else (`BASH_FUNC_f%%`) is refused before it is shown. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A variable (or family) that makes a program load or run code it names, and why. */
export interface CodeLoadingVariable {
  /** How it looks, for people: `BASH_ENV`, `LD_*`. */
  pattern: string;
  why: string;
  matches(name: string): boolean;
}

/** Names match without regard to case: a program on a case-insensitive system reads either. */
function named(names: string[], why: string): CodeLoadingVariable {
  const upper = new Set(names.map((n) => n.toUpperCase()));
  return { pattern: names.join(', '), why, matches: (name) => upper.has(name.toUpperCase()) };
}

function family(prefix: string, why: string): CodeLoadingVariable {
  return { pattern: `${prefix}*`, why, matches: (name) => name.toUpperCase().startsWith(prefix) };
}

/**
 * Variables that make a program load or run code named only in the variable. A command that brings
 * one is refused with an error to the agent and a notice in the transcript. The list cannot be
 * complete: every other variable is shown in the approval, and no rule covers a command with any.
 */
export const VARIABLES_THAT_LOAD_CODE: readonly CodeLoadingVariable[] = [
  named(['BASH_ENV'], 'bash runs the file it names before every script and `bash -c`'),
  named(['ENV'], 'sh, dash, ksh and bash in POSIX mode run the file it names when they start'),
  family('BASH_FUNC_', 'bash defines exported functions from these at start, replacing any command of that name'),
  named(['SHELLOPTS', 'BASHOPTS'], 'bash turns on the options it names at start (`xtrace` runs `PS4`)'),
  named(['PS0', 'PS1', 'PS2', 'PS4', 'PROMPT_COMMAND'], 'bash runs or expands them, command substitutions included, at prompts and traced commands'),
  named(['IFS'], 'changes how a shell splits words, so a script runs other commands than it reads as'),
  named(['CDPATH'], "a script's `cd NAME` lands in a folder elsewhere, whose scripts then run"),
  named(['ZDOTDIR'], 'zsh runs the startup files (`.zshenv`: every zsh) of the folder it names'),
  named(['FPATH'], 'zsh and ksh load functions from the folders it names'),
  named(['PATH'], 'a bare program name runs from the first folder it names that holds one'),
  named(['SHELL'], 'programs that run a command line (make on some systems, editors, `script`) start this program'),
  named(['HOME', 'XDG_CONFIG_HOME'], 'git, npm, shells and most tools read their config (`.gitconfig` with `core.pager`, `.npmrc`) from there'),
  family('LD_', 'the dynamic loader loads the libraries it names into every program (`LD_PRELOAD`, `LD_LIBRARY_PATH`, `LD_AUDIT`)'),
  family('DYLD_', "macOS's dynamic loader does the same (`DYLD_INSERT_LIBRARIES`)"),
  named(['GCONV_PATH'], 'glibc loads character-set modules (shared libraries) from the folder it names'),
  named(['NODE_OPTIONS'], 'every node process takes options from it (`--require`, `--import` load a module first)'),
  named(['NODE_PATH', 'NODE_REPL_EXTERNAL_MODULE'], "node finds modules there (a `require` can load another folder's code), or loads that module as its REPL"),
  family('NPM_CONFIG_', 'npm takes any config from these (`script-shell`, `node-options`, another registry)'),
  named(['PYTHONSTARTUP', 'PYTHONPATH', 'PYTHONHOME', 'PYTHONUSERBASE', 'PYTHONBREAKPOINT', 'PYTHONWARNINGS'], 'python runs that file, imports modules (its standard ones included) from the folders named, or imports the module a warning filter or breakpoint hook names'),
  family('PIP_', 'pip takes any option from these (another package index: its packages run on install)'),
  named(['PERL5OPT', 'PERL5LIB', 'PERLLIB', 'PERL5DB'], 'perl takes options (`-Mmodule` loads a module) or module folders from them'),
  named(['RUBYOPT', 'RUBYLIB'], 'ruby takes options (`-rlib` loads a library) or library folders from them'),
  named(['JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS'], 'every JVM takes options from them (`-javaagent:` loads code)'),
  named(['DOTNET_STARTUP_HOOKS'], '.NET loads the assemblies it names before the program'),
  named(['GOFLAGS'], 'every go command takes flags from it (`-toolexec=` runs a program)'),
  named(['RUSTC', 'RUSTC_WRAPPER', 'RUSTC_WORKSPACE_WRAPPER'], 'cargo runs the compiler, or a wrapper, it names'),
  family('CARGO_', 'cargo takes any config from these (runners, wrappers, build scripts)'),
  named(['MAKEFLAGS', 'MFLAGS', 'MAKEFILES'], 'make takes options and variable overrides (`SHELL=`) or reads more makefiles from them'),
  family('GIT_', 'git reads config (`GIT_CONFIG_*`), programs to run (`GIT_SSH_COMMAND`, `GIT_EXTERNAL_DIFF`, `GIT_EXEC_PATH`, `GIT_PAGER`) or another repository (`GIT_DIR`) from these'),
  named(['PAGER', 'MANPAGER', 'EDITOR', 'VISUAL', 'BROWSER'], 'git, man and many tools run the program they name, often through a shell'),
  named(['LESSOPEN', 'LESSCLOSE'], 'less runs the command they name on every file it opens'),
  named(['SSH_ASKPASS', 'SUDO_ASKPASS'], 'ssh and sudo run the program they name to ask for a password'),
  named(['KUBECONFIG', 'DOCKER_CONFIG', 'AWS_CONFIG_FILE'], 'kubectl, docker and aws run the credential programs the config they name says'),
  named(['OPENSSL_CONF'], 'OpenSSL reads the config it names, which can load engines (shared libraries)'),
  named(['LUA_INIT', 'LUA_PATH', 'LUA_CPATH'], 'lua runs that code at start, or loads modules from there'),
  named(['PHPRC', 'PHP_INI_SCAN_DIR'], 'php reads its ini from there (`auto_prepend_file` runs code)'),
  named(['VIMINIT', 'EXINIT'], 'vim and ex run the commands they hold at start'),
]; // prettier-ignore

export function loadsCode(name: string): CodeLoadingVariable | undefined {
  return VARIABLES_THAT_LOAD_CODE.find((v) => v.matches(name));
}

/** A variable known to do nothing but what its name says, with the values it may take. */
export interface InertVariable {
  /** How it looks, for people: `CI`, `LC_*`. */
  pattern: string;
  why: string;
  matches(name: string): boolean;
  /** A value that keeps it inert (a locale name, not a path to locale files). */
  value: RegExp;
}

function inert(names: string[], value: RegExp, why: string): InertVariable {
  return { pattern: names.join(', '), why, value, matches: (name) => names.includes(name) };
}

/** A switch: `1`, `true`, `0`, `yes`, `noninteractive`. */
const SWITCH = /^[A-Za-z0-9_.-]{0,32}$/;
/** A locale (`en_US.UTF-8`, `C`, `en_GB:en`): never a path, which glibc would load locale data from. */
const LOCALE = /^[A-Za-z0-9_.@:-]{0,64}$/;

/**
 * Variables known to be inert: each changes how output looks or which language it is in, or says
 * the command runs unattended, and makes no program load or run anything it names. Matched by exact
 * name, with a value of the form given (a path never fits). A short list on purpose: anything else
 * an agent needs, the person allows for it by name (`allowEnv`).
 */
export const INERT_VARIABLES: readonly InertVariable[] = [
  inert(['CI'], SWITCH, 'says the command runs unattended: tools stop asking questions and animating output'),
  inert(['NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE'], SWITCH, 'turn colored output off or on'),
  inert(['TERM', 'COLORTERM'], /^[A-Za-z0-9._+-]{1,64}$/, "name the terminal's kind (a terminfo name, never a path)"),
  inert(['COLUMNS', 'LINES'], /^\d{1,5}$/, "give the terminal's size in characters"),
  inert(['LANG', 'LANGUAGE'], LOCALE, 'name the language and character set of messages'),
  { pattern: 'LC_*', why: 'name the locale of one category (messages, dates, sorting)', value: LOCALE, matches: (name) => /^LC_[A-Z]+$/.test(name) },
  inert(['TZ'], /^[A-Za-z0-9_+-]{1,64}(?:\/[A-Za-z0-9_+-]{1,64}){0,3}$/, 'names the time zone (a zone name such as Europe/Paris, never a file)'),
  inert(['PAGER', 'GIT_PAGER'], /^(?:cat)?$/, 'as `cat` or empty: output goes straight out instead of to a pager that waits for keys'),
  inert(['GIT_TERMINAL_PROMPT'], /^[01]$/, 'as 0, git fails rather than wait for a password at a prompt no one sees'),
  inert(['PYTHONUNBUFFERED', 'PYTHONDONTWRITEBYTECODE'], SWITCH, 'python writes output at once, or writes no .pyc files'),
  inert(['PYTHONIOENCODING'], /^[A-Za-z0-9_.:-]{0,32}$/, "names python's encoding for its standard streams"),
  inert(['RUST_BACKTRACE'], SWITCH, 'a Rust program prints a backtrace when it panics'),
  inert(['DEBIAN_FRONTEND'], SWITCH, 'as noninteractive, Debian tools ask no questions'),
]; // prettier-ignore

/** The inert entry `name=value` fits, if any. */
function inertVariable(name: string, value: string): InertVariable | undefined {
  return INERT_VARIABLES.find((v) => v.matches(name) && v.value.test(value));
}

/**
 * Variables an adapter sets on every command it runs, each with the one value it sets, to say the
 * command runs under it: Zed's Claude Code adapter sends `CLAUDECODE=1` with every `terminal/create`
 * (it makes a nested `claude` refuse to start; it loads no code and changes no command line). With
 * exactly that value one is passed without being part of the action: a grant from a permission
 * request (which cannot show it) and a session rule still match, and the approval shows it on a
 * line of its own. Any other value is the agent's own variable like every other.
 */
export const ADAPTER_MARKERS: Readonly<Record<string, string>> = { CLAUDECODE: '1' };

export type AgentEnvCheck =
  /** `env`: every variable, as the process gets it; `own`: the agent's own, less its markers. */
  | { ok: true; env: Record<string, string>; own: Record<string, string>; markers: Record<string, string> }
  /** A variable on the list: `name` as the agent sent it, what it does, and the error for the agent. */
  | { ok: false; reason: 'loads-code'; name: string; why: string; message: string }
  /** A variable neither known to be inert nor allowed by the person for this agent. */
  | { ok: false; reason: 'not-inert'; name: string; message: string }
  /** A malformed request. */
  | { ok: false; reason: 'invalid'; message: string };

/**
 * The agent's variables as one environment (a name given twice: the last value, as a process would
 * get it), refused when one is malformed, loads code, or is neither inert nor in `allowed` (the
 * agent's `allowEnv`, names the person allowed it to set).
 */
export function checkAgentEnv(
  variables: readonly EnvVariable[],
  allowed: ReadonlySet<string> = new Set(),
): AgentEnvCheck {
  if (variables.length > MAX_AGENT_ENV) {
    return {
      ok: false,
      reason: 'invalid',
      message: `${variables.length} environment variables; at most ${MAX_AGENT_ENV}`,
    };
  }
  const env: Record<string, string> = {};
  for (const { name, value } of variables) {
    if (!NAME.test(name)) {
      return {
        ok: false,
        reason: 'invalid',
        message: `invalid environment variable name ${JSON.stringify(name.slice(0, 100))}`,
      };
    }
    const marker = Object.hasOwn(ADAPTER_MARKERS, name) && ADAPTER_MARKERS[name] === value;
    // Inert with this value (`PAGER=cat`), whatever the name could do with another.
    if (marker || inertVariable(name, value)) {
      env[name] = value;
      continue;
    }
    const loading = loadsCode(name);
    if (loading) {
      return {
        ok: false,
        reason: 'loads-code',
        name,
        why: loading.why,
        message: `the environment variable ${name} is refused: ${loading.why}, which no approval could show`,
      };
    }
    if (!allowed.has(name)) {
      return {
        ok: false,
        reason: 'not-inert',
        name,
        message: `the environment variable ${name} is refused: only variables known to be inert pass (${INERT_NAMES}), and a variable can make a program run code it names; the person can let this agent set ${name} with "allowEnv": ["${name}"] in its entry in agents.json`,
      };
    }
    env[name] = value;
  }
  const own: Record<string, string> = {};
  const markers: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (Object.hasOwn(ADAPTER_MARKERS, name) && ADAPTER_MARKERS[name] === value) markers[name] = value;
    else own[name] = value;
  }
  return { ok: true, env, own, markers };
}

/** A value as it is shown: plain when it is, else a JSON string (every character, one line). */
function shownValue(value: string): string {
  return /^[\w@%+=:,./-]*$/.test(value) ? value : JSON.stringify(value);
}

/**
 * The variables as they are shown after the command and matched by grants: one line, by name,
 * empty when there are none.
 */
export function envText(env: Readonly<Record<string, string>>): string {
  const names = Object.keys(env).sort();
  if (names.length === 0) return '';
  return `environment from the agent: ${names.map((n) => `${n}=${shownValue(env[n]!)}`).join(' ')}`;
}

/** The inert names as a refusal lists them. */
const INERT_NAMES = INERT_VARIABLES.map((v) => v.pattern).join(', ');

/**
 * The agent's variables that passed only because the person named them (`allowEnv`), as the
 * approval shows them: one line, empty when there are none.
 */
export function allowedText(names: readonly string[]): string {
  if (names.length === 0) return '';
  return `allowed for this agent in agents.json ("allowEnv"): ${[...names].sort().join(' ')}`;
}

/** The adapter's markers as the approval shows them: one line, empty when there are none. */
export function markersText(markers: Readonly<Record<string, string>>): string {
  const names = Object.keys(markers).sort();
  if (names.length === 0) return '';
  return `set by the adapter on every command: ${names.map((n) => `${n}=${shownValue(markers[n]!)}`).join(' ')}`;
}

/** Characters of a transcript row's title (the event's bound). */
const MAX_TITLE = 1000;

/**
 * The tool row's one-line title: the line, then its folder and variables. Past the bound the line
 * is cut first, so the variables stay in view (the approval and the row's input hold all of it).
 */
export function rowTitle(line: string, extra: string): string {
  const full = extra === '' ? line : `${line}\n${extra}`;
  if (full.length <= MAX_TITLE) return full;
  const cut = (text: string, room: number) => (text.length <= room ? text : `${text.slice(0, room - 1)}…`);
  if (extra === '') return cut(line, MAX_TITLE);
  const tail = cut(extra, Math.max(MAX_TITLE / 2, MAX_TITLE - 1 - line.length));
  return `${cut(line, MAX_TITLE - 1 - tail.length)}\n${tail}`;
}
