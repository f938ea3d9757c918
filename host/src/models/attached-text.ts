import type { ChatAttachment } from './types.js';

/** A text file as the model reads it: its name, then its contents, fenced so where it ends is plain. */
export function attachedText(file: Extract<ChatAttachment, { kind: 'text' }>): string {
  // A fence longer than any run of backticks in the file, so the file cannot close it early.
  const longest = Math.max(2, ...(file.text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `Attached file ${JSON.stringify(file.name)}:\n${fence}\n${file.text}\n${fence}`;
}
