import * as v from 'valibot';

/**
 * What a paired device may do. Each RPC method names the one scope it needs (methods.ts).
 * - watch: follow sessions and their transcripts
 * - approve: answer approvals
 * - chat: create sessions, send messages, interrupt, browse folders
 * - terminal: open and drive terminals
 * - admin: list and revoke other devices
 */
export const SCOPES = ['watch', 'approve', 'chat', 'terminal', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
export const ScopeSchema = v.picklist(SCOPES);

/** Granted when the person allows a pairing without choosing: everything but admin. */
export const DEFAULT_DEVICE_SCOPES: readonly Scope[] = ['watch', 'approve', 'chat', 'terminal'];

/**
 * Granted without choosing to a device whose app the host did not serve over a secure channel:
 * one paired on a relay's page or another site (whoever runs it decides what the app does), or
 * over plain HTTP (not loopback: someone able to change traffic on that network could have served
 * the phone another app). By default it may follow sessions and answer approvals, each of which
 * shows the person the whole action; chat or terminals only when asked for at the computer
 * (docs/security.md, "Who is trusted with what").
 */
export const LIMITED_DEVICE_SCOPES: readonly Scope[] = ['watch', 'approve'];

/** Parses "watch,approve" as typed at a terminal; undefined when any name is unknown. */
export function parseScopeList(text: string): Scope[] | undefined {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0) return undefined;
  const out: Scope[] = [];
  for (const name of names) {
    const parsed = v.safeParse(ScopeSchema, name);
    if (!parsed.success) return undefined;
    if (!out.includes(parsed.output)) out.push(parsed.output);
  }
  return out;
}
