import type { ExecutionContext } from '@tether/machine';
import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { runGit } from './git-runner.js';

/**
 * A repository's own settings (`.git/config` and what it includes) that name a program git would
 * run for what the phone asks of it: on `status` a file-system monitor, on `add` a clean filter, on
 * `push` an ssh command, a credential helper or the remote's pack programs, on `commit` a signing
 * program. A clone brings none of these, but a copied folder or an unpacked archive can, and the
 * person asking from the phone sees only git's own command line. The person's own settings
 * (global, system) are theirs and are not looked at.
 */
const RUNS_A_PROGRAM =
  /^(core\.(fsmonitor|sshcommand|askpass|gitproxy)|filter\..+\.(clean|smudge|process)|credential\.(.+\.)?helper|gpg\.(.+\.)?program|remote\..+\.(uploadpack|receivepack)|protocol\..+\.allow)$/i;
/** `core.fsmonitor` as a yes or no is git's own monitor, not a program. */
const YES_OR_NO = /^(true|false|yes|no|on|off|1|0|)$/i;

/** The keys of the repository's own settings that name programs, in the order git lists them. */
export async function settingsThatRun(context: ExecutionContext, top: string): Promise<Result<string[]>> {
  const run = await runGit(context, top, ['config', '--local', '--includes', '--null', '--list']);
  if (!run.ok) return run;
  if (run.value.code !== 0) {
    return fail('conflict', `git could not read this repository's settings: ${run.value.stderr.trim()}`);
  }
  const keys = new Set<string>();
  for (const entry of run.value.stdout.split('\0')) {
    const cut = entry.indexOf('\n');
    const key = cut < 0 ? entry : entry.slice(0, cut);
    const value = cut < 0 ? '' : entry.slice(cut + 1);
    if (!RUNS_A_PROGRAM.test(key)) continue;
    if (/^core\.fsmonitor$/i.test(key) && YES_OR_NO.test(value.trim())) continue;
    keys.add(key.toLowerCase());
  }
  return ok([...keys]);
}

/** A refusal naming them, or nothing to refuse. */
export async function refuseSettingsThatRun(context: ExecutionContext, top: string): Promise<Result<void>> {
  const found = await settingsThatRun(context, top);
  if (!found.ok) return found;
  if (found.value.length === 0) return ok(undefined);
  const shown = found.value.slice(0, 10).join(', ');
  return fail(
    'forbidden',
    `this repository's own settings name programs git would run (${shown}${found.value.length > 10 ? ', …' : ''}): ` +
      'git from the phone runs none it was not shown. Look at them in a terminal (git config --local --list), remove them, or use git there.',
  );
}
