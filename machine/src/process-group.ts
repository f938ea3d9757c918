/** Milliseconds between SIGTERM and SIGKILL when a process is stopped: time to clean up. */
export const KILL_GRACE_MS = 2000;

/** Environment variables a command never sees: the host's own credentials. */
const HIDDEN_ENV = /^(ANTHROPIC_API_KEY|OPENAI_API_KEY|TETHER_.*)$/;

/** The environment commands and processes get: the host's, without its credentials. */
export function commandEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (!HIDDEN_ENV.test(key)) out[key] = value;
  return out;
}

/**
 * Sends `signal` to the process group led by `pid` (every process started with `detached: true`
 * leads its own group), reaching whatever it started too. A group already gone is not an error.
 */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
