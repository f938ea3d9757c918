import { makePng } from '../../host/test/support/test-image.js';

/** A real PNG photo stand-in: `width` × `height` RGB pixels of a gradient any browser decodes. */
export function photoPng(width: number, height: number): Buffer {
  return Buffer.from(makePng(width, height));
}

/** The pixel size a JPEG says in its frame header (SOF0–SOF2), or undefined for bytes that are not one. */
export function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    const length = bytes.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xc2)
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  return undefined;
}

/** The image blocks of the last user turn in an Anthropic Messages request body. */
export function anthropicImages(body: Record<string, unknown>): { media_type: string; data: string }[] {
  const messages = body.messages as { role: string; content: unknown }[];
  const user = messages.filter((m) => m.role === 'user').at(-1);
  if (!user || !Array.isArray(user.content)) return [];
  return (user.content as { type: string; source?: { media_type: string; data: string } }[])
    .filter((b) => b.type === 'image' && b.source)
    .map((b) => b.source!);
}
