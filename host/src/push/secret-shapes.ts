/**
 * Secrets known by their look alone, wherever they stand: the well-known token formats (their
 * fixed prefixes and lengths), private key blocks, and any long run of token characters that
 * reads as random. Each rule is one pass over the text with no nested repetition (the text comes
 * from a model, so it is hostile), and yields the ranges to mask.
 */

export type Range = readonly [start: number, end: number];

/** A run of token characters at least this long is checked for randomness. */
export const MIN_RANDOM_RUN = 24;
/** Shannon entropy (bits per character) above which such a run counts as random: hex is at most
 * 4, base64 at most 6; English words and paths run well under 3.5 at these lengths. */
const RANDOM_BITS_PER_CHAR = 3.5;

/** Prefixed tokens of the services people most often paste into a command. */
const KNOWN_SHAPES = new RegExp(
  [
    String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`, // GitHub
    String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
    String.raw`\bglpat-[A-Za-z0-9_-]{16,}`, // GitLab
    String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`, // Slack
    String.raw`\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}`, // Stripe
    String.raw`\bsk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{20,}`, // Anthropic, OpenAI
    String.raw`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}\b`, // AWS access key ids
    String.raw`\bAIza[A-Za-z0-9_-]{35}`, // Google API keys
    String.raw`\bnpm_[A-Za-z0-9]{36}`,
    String.raw`\bhf_[A-Za-z0-9]{30,}`, // Hugging Face
    String.raw`\bpypi-[A-Za-z0-9_-]{40,}`,
    String.raw`\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`, // SendGrid
    String.raw`\bdop_v1_[a-f0-9]{64}`, // DigitalOcean
    String.raw`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`, // Shopify
    String.raw`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*`, // a JWT
    // A private key block, to its end (or the end of the text when cut).
    String.raw`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[^-]*(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?`,
  ].join('|'),
  'g',
);

const TOKEN_RUN = /[A-Za-z0-9_+/=.-]{24,}/g;

export function knownShapes(text: string): Range[] {
  return [...text.matchAll(KNOWN_SHAPES)].map((m) => [m.index, m.index + m[0].length]);
}

export function randomRuns(text: string): Range[] {
  return [...text.matchAll(TOKEN_RUN)].filter((m) => looksRandom(m[0])).map((m) => [m.index, m.index + m[0].length]);
}

/**
 * A run that looks like a key rather than a word or a path: mixes letters and digits, and its
 * characters are spread (entropy per character). Paths (`/usr/local/lib/...`) and long words fail
 * one or the other.
 */
export function looksRandom(run: string): boolean {
  if (run.length < MIN_RANDOM_RUN) return false;
  if (!/[0-9]/.test(run) || !/[A-Za-z]/.test(run)) return false;
  // A path or a dotted name is made of words, each short: not a key.
  if (run.split(/[/.]/).every((part) => part.length < 16)) return false;
  return entropy(run) >= RANDOM_BITS_PER_CHAR;
}

/** Bits per character; `text` holds token characters only (ASCII). */
function entropy(text: string): number {
  const counts = new Uint32Array(128);
  for (let i = 0; i < text.length; i++) counts[text.charCodeAt(i) & 127]!++;
  let bits = 0;
  for (const n of counts) {
    if (n === 0) continue;
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
