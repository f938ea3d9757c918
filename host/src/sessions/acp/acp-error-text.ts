import { RequestError } from '@agentclientprotocol/sdk';
import { cut } from './acp-content-text.js';

/** ACP's "authentication required". */
const AUTH_REQUIRED = -32000;

/** An agent's error in words: its message (its own text, cut), and a hint for a sign-in it needs. */
export function errorText(error: unknown): string {
  if (error instanceof RequestError) {
    const text = cut(error.message, 1000);
    return error.code === AUTH_REQUIRED ? `${text} (it needs you to sign in first: see docs/agents.md)` : text;
  }
  return error instanceof Error ? cut(error.message, 1000) : 'no reason given';
}
