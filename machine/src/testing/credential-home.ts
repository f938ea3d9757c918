import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Files under a home folder that hold tokens, passwords or what a person typed, as the common
 * tools write them: each must be refused by name, on the host's own computer and on a machine.
 * The first ones are those a device with only `watch` and `chat` was shown read without asking.
 */
export const CREDENTIAL_FILES: readonly string[] = [
  '.git-credentials',
  '.npmrc',
  '.netrc',
  '.pgpass',
  '.config/hub',
  '.vault-token',
  '.bash_history',
  '.config/rclone/rclone.conf',
  '.terraform.d/credentials.tfrc.json',
  '.cargo/credentials.toml',
  '.cargo/credentials',
  '.config/git/credentials',
  '.yarnrc',
  '.yarnrc.yml',
  '.my.cnf',
  '.pypirc',
  '.gem/credentials',
  '.config/composer/auth.json',
  '.config/containers/auth.json',
  '.s3cfg',
  '.boto',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.lesshst',
  '.local/share/fish/fish_history',
  '.mozilla/firefox/abc.default/logins.json',
  '.config/google-chrome/Default/Preferences',
  '.config/chromium/Default/Preferences',
  '.local/share/keyrings/login.keyring',
  'Library/Keychains/login.keychain-db',
];

/**
 * What a listing of the credential home shows: only the folders that hold private files without
 * being private themselves, and the code. No credential file, no browser profile, no keyring.
 */
export const LISTED_IN_HOME: readonly string[] = [
  '.cargo',
  '.config',
  '.gem',
  '.gradle',
  '.local',
  '.m2',
  '.terraform.d',
  'code',
  'Library',
];
export const LISTED_IN_CONFIG: readonly string[] = ['composer', 'containers', 'git', 'rclone'];

/** A line every credential file holds: a search for it must find none of them. */
export const CREDENTIAL_NEEDLE = 'secret-token-needle';

/**
 * Writes every CREDENTIAL_FILES entry and `.ssh/id_ed25519` under `home`, and `code/app.ts`.
 * With `hardLinks`, `code/notes.txt` is a hard link to the private key and `code/config.txt` one
 * to `.git-credentials`: other names for the very same files.
 */
export function writeCredentialHome(home: string, options: { hardLinks?: boolean } = {}): void {
  for (const file of [...CREDENTIAL_FILES, '.ssh/id_ed25519']) {
    mkdirSync(dirname(join(home, file)), { recursive: true });
    writeFileSync(join(home, file), `${CREDENTIAL_NEEDLE} in ${file}\n`);
  }
  mkdirSync(join(home, 'code'), { recursive: true });
  writeFileSync(join(home, 'code', 'app.ts'), `// ${CREDENTIAL_NEEDLE} in the code\n`);
  if (options.hardLinks) {
    linkSync(join(home, '.ssh', 'id_ed25519'), join(home, 'code', 'notes.txt'));
    linkSync(join(home, '.git-credentials'), join(home, 'code', 'config.txt'));
  }
}
