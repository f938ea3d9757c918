import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';

/**
 * Paths under the home folder that hold credentials, what a person typed, or Tether's own keys
 * and tokens. A host is never given them: a machine refuses to share a root that is, or lies
 * inside, one of them, refuses every file operation on them inside any root it shares (sharing
 * `~` does not share `~/.ssh` or `~/.npmrc`), and leaves them out of listings and searches. The
 * host keeps the same list for the folders it offers its own sessions. Another name for one of
 * these files (a hard link) is refused too: see PrivateFiles. A shell command can still read what
 * the user can: this protects file operations and folders, not a command line (docs/machines.md).
 */
export interface PrivateEntry {
  /** Relative to the home folder: a folder (everything in it) or a file. */
  path: string;
  /** What it holds, for the person reading the list. */
  why: string;
}

export const PRIVATE_HOME_PATHS: readonly PrivateEntry[] = [
  // Keys and cloud credentials.
  { path: '.ssh', why: 'SSH private keys' },
  { path: '.gnupg', why: 'GnuPG private keys' },
  { path: '.aws', why: 'AWS access keys' },
  { path: '.azure', why: 'Azure CLI tokens' },
  { path: '.config/gcloud', why: 'Google Cloud tokens' },
  { path: '.oci', why: 'Oracle Cloud API keys' },
  { path: '.kube', why: 'Kubernetes cluster credentials' },
  { path: '.minikube', why: 'local Kubernetes client keys' },
  { path: '.docker', why: 'container registry logins' },
  { path: '.dockercfg', why: 'container registry logins (old Docker)' },
  { path: '.config/containers/auth.json', why: 'Podman and Buildah registry logins' },
  { path: '.password-store', why: 'pass password store' },
  { path: '.config/op', why: '1Password CLI sessions' },
  { path: '.pulumi/credentials.json', why: 'Pulumi access tokens' },
  { path: '.terraform.d/credentials.tfrc.json', why: 'Terraform Cloud tokens' },
  { path: '.terraformrc', why: 'Terraform CLI config, may hold tokens' },
  { path: '.vault-token', why: 'HashiCorp Vault token' },
  { path: '.config/doctl', why: 'DigitalOcean token' },
  { path: '.s3cfg', why: 's3cmd access keys' },
  { path: '.boto', why: 'gsutil and boto access keys' },
  { path: '.config/rclone/rclone.conf', why: 'rclone remotes and their tokens' },
  // Source hosts and package registries.
  { path: '.git-credentials', why: 'git credential store: tokens in URLs' },
  { path: '.config/git/credentials', why: 'git credential store (XDG location)' },
  { path: '.config/gh', why: 'GitHub CLI token' },
  { path: '.config/hub', why: 'hub (GitHub) token' },
  { path: '.config/glab-cli', why: 'GitLab CLI token' },
  { path: '.netrc', why: 'logins for curl, git, heroku and others' },
  { path: '.npmrc', why: 'npm registry tokens' },
  { path: '.yarnrc', why: 'Yarn 1 registry tokens' },
  { path: '.yarnrc.yml', why: 'Yarn registry tokens' },
  { path: '.pypirc', why: 'PyPI upload tokens' },
  { path: '.gem/credentials', why: 'RubyGems API key' },
  { path: '.cargo/credentials', why: 'crates.io token (old name)' },
  { path: '.cargo/credentials.toml', why: 'crates.io token' },
  { path: '.config/composer/auth.json', why: 'Composer repository logins' },
  { path: '.composer/auth.json', why: 'Composer repository logins (old location)' },
  { path: '.m2/settings.xml', why: 'Maven repository passwords' },
  { path: '.m2/settings-security.xml', why: 'Maven master password' },
  { path: '.gradle/gradle.properties', why: 'Gradle repository and signing passwords' },
  // Databases.
  { path: '.pgpass', why: 'PostgreSQL passwords' },
  { path: '.my.cnf', why: 'MySQL client password' },
  { path: '.mylogin.cnf', why: 'MySQL login paths' },
  // What a person typed: passwords pasted at prompts, tokens in commands.
  { path: '.bash_history', why: 'shell history' },
  { path: '.zsh_history', why: 'shell history' },
  { path: '.histfile', why: 'shell history (zsh, some systems)' },
  { path: '.sh_history', why: 'shell history' },
  { path: '.local/share/fish/fish_history', why: 'fish shell history' },
  { path: '.python_history', why: 'Python prompt history' },
  { path: '.node_repl_history', why: 'Node.js prompt history' },
  { path: '.psql_history', why: 'PostgreSQL prompt history' },
  { path: '.mysql_history', why: 'MySQL prompt history' },
  { path: '.sqlite_history', why: 'SQLite prompt history' },
  { path: '.rediscli_history', why: 'Redis prompt history' },
  { path: '.dbshell', why: 'MongoDB shell history' },
  { path: '.irb_history', why: 'Ruby prompt history' },
  { path: '.lesshst', why: 'less search history' },
  // Browser profiles (cookies, saved logins) and keyrings.
  { path: '.mozilla', why: 'Firefox profiles' },
  { path: '.thunderbird', why: 'Thunderbird profiles and saved passwords' },
  { path: '.config/google-chrome', why: 'Chrome profiles' },
  { path: '.config/chromium', why: 'Chromium profiles' },
  { path: '.config/BraveSoftware', why: 'Brave profiles' },
  { path: '.config/microsoft-edge', why: 'Edge profiles' },
  { path: '.config/vivaldi', why: 'Vivaldi profiles' },
  { path: '.local/share/keyrings', why: 'GNOME keyring' },
  { path: '.local/share/kwalletd', why: 'KDE wallet' },
  { path: 'Library/Keychains', why: 'macOS keychains' },
  { path: 'Library/Cookies', why: 'macOS cookies' },
  { path: 'Library/Safari', why: 'Safari data' },
  { path: 'Library/Application Support/Google/Chrome', why: 'Chrome profiles (macOS)' },
  { path: 'Library/Application Support/Chromium', why: 'Chromium profiles (macOS)' },
  { path: 'Library/Application Support/Firefox', why: 'Firefox profiles (macOS)' },
  { path: 'Library/Application Support/BraveSoftware', why: 'Brave profiles (macOS)' },
  { path: 'Library/Application Support/Microsoft Edge', why: 'Edge profiles (macOS)' },
  // Tether's own keys, tokens and data.
  { path: '.config/tether', why: "Tether's own configuration" },
  { path: '.local/share/tether', why: "Tether's keys and data" },
  { path: '.local/share/tether-machine', why: "a machine's token and data" },
  { path: '.local/state/tether', why: "Tether's state" },
];

/**
 * Environment variables that move one of the above elsewhere; each names a path (or, with
 * `suffixes`, a folder whose named entries are private). Only absolute values count.
 */
const PRIVATE_ENV_PATHS: readonly {
  variable: string;
  suffixes?: readonly string[];
  /** Several paths, `:`-separated. */
  list?: true;
  /** A relative value counts too, from the working folder, as Tether itself reads it. */
  relative?: true;
}[] = [
  { variable: 'GNUPGHOME' },
  { variable: 'DOCKER_CONFIG' },
  { variable: 'REGISTRY_AUTH_FILE' },
  { variable: 'KUBECONFIG', list: true },
  { variable: 'AWS_SHARED_CREDENTIALS_FILE' },
  { variable: 'AWS_CONFIG_FILE' },
  { variable: 'AZURE_CONFIG_DIR' },
  { variable: 'CLOUDSDK_CONFIG' },
  { variable: 'GH_CONFIG_DIR' },
  { variable: 'PASSWORD_STORE_DIR' },
  { variable: 'RCLONE_CONFIG' },
  { variable: 'TF_CLI_CONFIG_FILE' },
  { variable: 'NPM_CONFIG_USERCONFIG' },
  { variable: 'CARGO_HOME', suffixes: ['credentials', 'credentials.toml'] },
  { variable: 'GRADLE_USER_HOME', suffixes: ['gradle.properties'] },
  { variable: 'PGPASSFILE' },
  { variable: 'HISTFILE' },
  { variable: 'PSQL_HISTORY' },
  { variable: 'MYSQL_HISTFILE' },
  { variable: 'NODE_REPL_HISTORY' },
  { variable: 'PYTHON_HISTORY' },
  { variable: 'SQLITE_HISTORY' },
  { variable: 'REDISCLI_HISTFILE' },
  { variable: 'LESSHISTFILE' },
  { variable: 'XDG_RUNTIME_DIR', suffixes: ['containers/auth.json'] },
  { variable: 'TETHER_DATA_DIR', relative: true },
  { variable: 'TETHER_MACHINE_DIR', relative: true },
];

/** Where XDG variables move `.config`, `.local/share` and `.local/state` entries. */
const XDG_BASES: readonly [prefix: string, variable: string][] = [
  ['.config/', 'XDG_CONFIG_HOME'],
  ['.local/share/', 'XDG_DATA_HOME'],
  ['.local/state/', 'XDG_STATE_HOME'],
];

export interface PrivatePathOptions {
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** More paths never reachable: a machine's data dir, its token file, a host's data dir. */
  extra?: readonly string[];
}

/**
 * Every private path as an absolute real path (one that does not exist yet keeps its lexical
 * path, so creating it later does not make it reachable). A path that is a symlink (a dotfile
 * kept in a dotfiles repository) is private under both names.
 */
export function privatePaths(options: PrivatePathOptions = {}): string[] {
  const env = options.env ?? process.env;
  const home = options.home ?? env.HOME ?? homedir();
  const paths = PRIVATE_HOME_PATHS.map((entry) => join(home, entry.path));
  for (const [prefix, variable] of XDG_BASES) {
    const base = env[variable];
    if (!base || !isAbsolute(base)) continue;
    for (const entry of PRIVATE_HOME_PATHS) {
      if (entry.path.startsWith(prefix)) paths.push(join(base, entry.path.slice(prefix.length)));
    }
    paths.push(join(base, 'tether-machine'));
  }
  for (const { variable, suffixes, list, relative } of PRIVATE_ENV_PATHS) {
    const value = env[variable];
    if (!value) continue;
    for (const path of list ? value.split(':') : [value]) {
      if (path === '' || (!isAbsolute(path) && !relative)) continue;
      if (suffixes) paths.push(...suffixes.map((suffix) => join(path, suffix)));
      else paths.push(resolve(path));
    }
  }
  paths.push(...(options.extra ?? []).map((path) => resolve(path)));
  const real = new Set<string>();
  for (const path of paths) {
    real.add(path);
    try {
      real.add(realpathSync(path));
    } catch {
      // Not there (yet): its lexical path stands for it.
    }
  }
  return [...real];
}

/**
 * The home folder as a real path (HOME, else the system's), whose hidden entries a session asks
 * about before reading; undefined when it does not resolve.
 */
export function homeFolder(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    return realpathSync(env.HOME ?? homedir());
  } catch {
    return undefined;
  }
}

/** Whether `realPath` is one of `privates` or lies inside one. */
export function isPrivatePath(realPath: string, privates: readonly string[]): boolean {
  return privates.some((p) => realPath === p || realPath.startsWith(p.endsWith(sep) ? p : p + sep));
}
