import type { Clock } from '@tether/shared-protocol';
import { MAX_ACTION_TEXT } from '@tether/shared-protocol';
import type { ExecutionContext } from '@tether/machine';
import type { RunContext } from '../session-backend.js';
import { repositoryRoot } from '../builtin/project-instructions.js';
import type { TrustRecord, TrustStore } from '../../store/trust-store.js';
import type { FolderConfig, TrustFamily } from './folder-config.js';
import { FAMILY_TITLES, fingerprint, hasConfig, readFolderConfig, trustAction, untrustable } from './folder-config.js';

/**
 * Folder trust, owned by Tether for every agent it drives. Before an agent starts in a folder,
 * the folder's own configuration for that agent is read; it loads only when there is none, when
 * the person trusted it as it is now (`tether trust`, or "always" on the approval), or when they
 * trust it for this session. Otherwise the first start raises an approval showing all of it,
 * which the person answers from the phone or the computer; no auto-approve switch or session rule
 * answers it. Declined, unanswerable or not pinnable, the agent starts without it, and the
 * transcript says so.
 */

/** Sessions whose "this session only" trust is kept; past it the oldest are forgotten (and asked again). */
const SESSION_TRUSTS_KEPT = 1024;

/** The approval's answer that outlives the session, in Tether's words. */
export const TRUST_ALWAYS = 'Trust it from now on, until it changes (tether trust --revoke undoes it)';

export interface TrustOutcome {
  trusted: boolean;
  /** The person answered just now (else it was known already, or there was nothing to ask). */
  fresh?: true;
  /** The run was interrupted while the person was asked. */
  cancelled?: true;
  /** What to say in the transcript about it (none when there was nothing to trust). */
  notice?: string;
}

export interface FolderTrustDeps {
  store: TrustStore;
  clock: Clock;
  /** The host's environment (where a plugin's program on PATH is found). */
  env: NodeJS.ProcessEnv;
}

export class FolderTrust {
  /** `session\0family` → the fingerprint trusted for that session only. */
  private readonly sessionTrusts = new Map<string, string>();
  /** `session\0family` → the fingerprint the person declined in that session: not asked again there. */
  private readonly sessionDeclines = new Map<string, string>();

  constructor(private readonly deps: FolderTrustDeps) {}

  /** The folder's configuration for `family`, as a session in it would load it. */
  async read(context: ExecutionContext, folder: string, family: TrustFamily): Promise<FolderConfig> {
    const root = await repositoryRoot(context, folder);
    return readFolderConfig({ context, folder, root, env: this.deps.env }, family);
  }

  /** Whether this run's agent may load the session folder's own configuration; asks the person when it must. */
  async decide(run: RunContext, family: TrustFamily): Promise<TrustOutcome> {
    const record = run.record();
    const config = await this.read(run.context, record.cwd, family);
    if (!hasConfig(config)) return { trusted: true };
    const title = FAMILY_TITLES[family];
    const print = fingerprint(config);
    const kept = this.deps.store.get(record.place, config.folder, family);
    const sessionKey = `${run.sessionId}\0${family}`;
    if (kept?.fingerprint === print || this.sessionTrusts.get(sessionKey) === print) {
      return { trusted: true, notice: `${title} loads this folder's own configuration: it is trusted as it is.` };
    }
    const declined = notLoaded(family);
    if (this.sessionDeclines.get(sessionKey) === print) {
      return { trusted: false, notice: `${declined} You declined to trust it in this session.` };
    }
    const problem = untrustable(config);
    if (problem !== undefined) return { trusted: false, notice: `${declined} ${capital(problem)}.` };
    const changed = kept ? `It changed since it was trusted (${kept.trustedBy}).\n` : '';
    const action = changed + trustAction(config);
    if (action.length > MAX_ACTION_TEXT) {
      return {
        trusted: false,
        notice: `${declined} It is too large to show in an approval; read it at the computer with: tether trust ${config.folder}`,
      };
    }
    const answer = await run.gate.askPerson(
      {
        toolCallId: run.newId('trust'),
        tool: 'folder-trust',
        need: { kind: 'trust', action },
        place: record.place,
        always: TRUST_ALWAYS,
      },
      run.signal,
    );
    if (!answer.allowed) {
      if (answer.reason === 'cancelled') return { trusted: false, cancelled: true };
      remember(this.sessionDeclines, sessionKey, print);
      return { trusted: false, fresh: true, notice: `${declined} You declined to trust it.` };
    }
    if (answer.by === 'person' && answer.decision === 'allow-always') {
      this.trust({ place: record.place, family, config, action, by: answer.answeredBy ?? 'the person' });
      return {
        trusted: true,
        fresh: true,
        notice: `${title} loads this folder's own configuration: trusted from now on, until it changes.`,
      };
    }
    remember(this.sessionTrusts, sessionKey, print);
    return {
      trusted: true,
      fresh: true,
      notice: `${title} loads this folder's own configuration: trusted for this session.`,
    };
  }

  /** Whether the configuration is trusted, at that place, as it is now. */
  isTrusted(place: string, config: FolderConfig): boolean {
    return this.deps.store.get(place, config.folder, config.family)?.fingerprint === fingerprint(config);
  }

  /** Every trusted configuration, newest first. */
  list(): TrustRecord[] {
    return this.deps.store.list();
  }

  /** Forgets what was trusted in a folder, for one agent or every one: its next session asks again. */
  revoke(place: string, folder: string, family?: TrustFamily): number {
    return this.deps.store.revoke(place, folder, family);
  }

  /** Records trust in a configuration as it is (`tether trust`, or "always" on the approval). */
  trust(input: { place: string; family: TrustFamily; config: FolderConfig; action?: string; by: string }): TrustRecord {
    const record: TrustRecord = {
      place: input.place,
      folder: input.config.folder,
      family: input.family,
      fingerprint: fingerprint(input.config),
      action: input.action ?? trustAction(input.config),
      trustedAt: this.deps.clock.now(),
      trustedBy: input.by,
    };
    this.deps.store.set(record);
    return record;
  }
}

/** What a session runs without when its folder's configuration is not loaded. */
function notLoaded(family: TrustFamily): string {
  return family === 'tether'
    ? "This folder's own skills and plugins are not loaded: this session runs without them."
    : `This folder's own configuration for ${FAMILY_TITLES[family]} is not loaded: it runs with your user-level settings only.`;
}

/** Keeps `key` → `value`, forgetting the oldest past SESSION_TRUSTS_KEPT. */
function remember(map: Map<string, string>, key: string, value: string): void {
  map.delete(key);
  if (map.size >= SESSION_TRUSTS_KEPT) map.delete(map.keys().next().value!);
  map.set(key, value);
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
