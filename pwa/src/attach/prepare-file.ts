import {
  ATTACHMENT_IMAGE_EDGE,
  IMAGE_TYPES,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENT_NAME,
  TEXT_TYPES,
} from '@tether/shared-protocol';
import type { OutboxFile } from '../data/records.js';

/** JPEG quality for a photo scaled down: small enough for a phone's link, sharp enough to read text. */
const JPEG_QUALITY = 0.85;
/** A photo already small enough (edge and bytes) is sent as it is, keeping a PNG screenshot crisp. */
const KEEP_AS_IS_BYTES = 1024 * 1024;

const TEXT_BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
};

export type Prepared = { ok: true; file: OutboxFile } | { ok: false; reason: string };

/**
 * A picked, photographed or pasted file made ready to send: a photo scaled down on the phone to
 * ATTACHMENT_IMAGE_EDGE on its longest edge (JPEG), a text file as it is; anything else, or a file
 * still over MAX_ATTACHMENT_BYTES, is refused here with the reason in plain words.
 */
export async function prepareFile(file: File): Promise<Prepared> {
  const name = (file.name || 'pasted').slice(0, MAX_ATTACHMENT_NAME);
  const extension = name.split('.').pop()?.toLowerCase() ?? '';
  const textType = (TEXT_TYPES as readonly string[]).includes(file.type) ? file.type : TEXT_BY_EXTENSION[extension];
  if (textType) {
    if (file.size > MAX_ATTACHMENT_BYTES) return { ok: false, reason: `${name} is too large to send` };
    return { ok: true, file: { name, type: textType, bytes: new Uint8Array(await file.arrayBuffer()) } };
  }
  if (!file.type.startsWith('image/')) {
    return { ok: false, reason: `${name} can't be sent: attach a photo or a text file` };
  }
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return { ok: false, reason: `${name} is not a picture this device can open` };
  }
  try {
    const edge = Math.max(bitmap.width, bitmap.height);
    if (
      edge <= ATTACHMENT_IMAGE_EDGE &&
      file.size <= KEEP_AS_IS_BYTES &&
      (IMAGE_TYPES as readonly string[]).includes(file.type)
    ) {
      return { ok: true, file: { name, type: file.type, bytes: new Uint8Array(await file.arrayBuffer()) } };
    }
    const scale = Math.min(1, ATTACHMENT_IMAGE_EDGE / edge);
    const width = Math.max(1, Math.round(bitmap.width * scale));
    const height = Math.max(1, Math.round(bitmap.height * scale));
    const blob = await drawJpeg(bitmap, width, height);
    if (!blob) return { ok: false, reason: `${name} could not be scaled down on this device` };
    if (blob.size > MAX_ATTACHMENT_BYTES) return { ok: false, reason: `${name} is too large to send` };
    return {
      ok: true,
      file: { name: jpegName(name), type: 'image/jpeg', bytes: new Uint8Array(await blob.arrayBuffer()) },
    };
  } finally {
    bitmap.close();
  }
}

/** The bitmap drawn at `width` × `height` as a JPEG: on an OffscreenCanvas where there is one. */
async function drawJpeg(bitmap: ImageBitmap, width: number, height: number): Promise<Blob | null> {
  if (typeof OffscreenCanvas !== 'undefined') {
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (context) {
      context.drawImage(bitmap, 0, 0, width, height);
      return canvas.convertToBlob({ type: 'image/jpeg', quality: JPEG_QUALITY });
    }
  }
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  canvas.getContext('2d')?.drawImage(bitmap, 0, 0, width, height);
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', JPEG_QUALITY));
}

function jpegName(name: string): string {
  return /\.jpe?g$/i.test(name) ? name : `${name.replace(/\.[^.]*$/, '') || 'photo'}.jpg`;
}
