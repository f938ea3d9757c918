import type { AttachmentType } from '@tether/shared-protocol';

/** The first bytes each image type starts with; bytes that say otherwise are not that image. */
function looksLike(type: AttachmentType, head: Uint8Array): boolean {
  const at = (offset: number, ...bytes: number[]) => bytes.every((b, i) => head[offset + i] === b);
  switch (type) {
    case 'image/jpeg':
      return at(0, 0xff, 0xd8, 0xff);
    case 'image/png':
      return at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
    case 'image/gif':
      return at(0, 0x47, 0x49, 0x46, 0x38) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61;
    case 'image/webp':
      return at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50);
    default:
      return false;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether `bytes` are what `type` says: an image starts with its format's signature; a text file
 * is UTF-8 without NUL bytes. A file named a photo that is something else is refused before it is
 * kept, so a model or a phone is never handed bytes under a type they are not.
 */
export function contentMatches(type: AttachmentType, bytes: Uint8Array): boolean {
  if (type.startsWith('image/')) return looksLike(type, bytes.subarray(0, 16));
  if (bytes.includes(0)) return false;
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Text of a text attachment (checked as UTF-8 when it was kept). */
export function attachmentText(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
