import type { Result } from '@tether/shared-protocol';
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENT_NAME, fail, ok } from '@tether/shared-protocol';
import { readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';

/** The type a file is sent as, by its extension; the host checks its bytes agree. */
const TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
};

export interface FileToAttach {
  name: string;
  type: string;
  bytes: Uint8Array;
}

/**
 * A file named by `--attach`: its name, type and bytes. A file over MAX_ATTACHMENT_BYTES is refused
 * here, before it is read, with the code the host would give; any other type is sent as such and
 * refused by the host, in its words.
 */
export function readFileToAttach(path: string): Result<FileToAttach> {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return fail('not-a-file', `${path} is not a file`);
    size = stat.size;
  } catch {
    return fail('not-found', `no file ${path}`);
  }
  if (size > MAX_ATTACHMENT_BYTES) {
    return fail('too-large', `an attachment may be at most ${MAX_ATTACHMENT_BYTES} bytes; ${path} is ${size}`);
  }
  const name = basename(path).slice(0, MAX_ATTACHMENT_NAME) || 'file';
  const type = TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
  return ok({ name, type, bytes: new Uint8Array(readFileSync(path)) });
}
