import * as v from 'valibot';
import { Count, Id } from './common.js';

/**
 * `blobs.*`: photos and files a device attaches to a message. A file goes up in chunks over the
 * sealed channel (`begin` with its size, type and SHA-256; `chunk` in order; `finish` checks the
 * hash), is kept once by its hash in the host's blob store, and belongs to the session it was sent
 * for: a message names it by that hash, and only devices that may watch the session read it back.
 */

/** Bytes of one attachment: 10 MiB. A photo downscaled on the phone is well under a megabyte;
 * a screenshot or a log file fits; a raw 200 MB photo does not. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** Bytes of one chunk: 256 KiB, about 342 KiB as base64url, well under the 1 MiB frame cap with
 * room for the rest of the request. Every chunk but the last is exactly this size. */
export const ATTACHMENT_CHUNK_BYTES = 256 * 1024;

/** Attachments one message may carry. */
export const MAX_ATTACHMENTS_PER_MESSAGE = 8;

/** Uploads one caller (a device, the control socket) may have open at once: a message's worth. */
export const MAX_OPEN_UPLOADS = MAX_ATTACHMENTS_PER_MESSAGE;

/** Milliseconds an upload may go without a chunk before the host drops it (and its partial
 * bytes): 60 s, three times the RPC timeout, so a slow link finishing a chunk is not cut off. */
export const UPLOAD_IDLE_MS = 60 * 1000;

/** Longest edge, in pixels, the app scales a photo down to before it is sent. */
export const ATTACHMENT_IMAGE_EDGE = 1600;

/** Characters of an attachment's file name as kept and shown. */
export const MAX_ATTACHMENT_NAME = 256;

/** Images a model can be shown. The host checks the bytes are what the type says. */
export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;
/** Text files, given to the model as text (UTF-8, no NUL bytes). */
export const TEXT_TYPES = ['text/plain', 'text/markdown', 'text/csv', 'application/json'] as const;
export const ATTACHMENT_TYPES = [...IMAGE_TYPES, ...TEXT_TYPES] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];
export const AttachmentTypeSchema = v.picklist(ATTACHMENT_TYPES);

export function isImageType(type: string): boolean {
  return (IMAGE_TYPES as readonly string[]).includes(type);
}

/** A blob's id: the lowercase hex SHA-256 of its bytes. */
export const BlobId = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));

export const AttachmentName = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_ATTACHMENT_NAME));

/** An attachment as a message carries it: by reference, never the bytes. */
export const AttachmentSchema = v.object({
  id: BlobId,
  type: AttachmentTypeSchema,
  size: v.pipe(Count, v.maxValue(MAX_ATTACHMENT_BYTES)),
  name: AttachmentName,
});
export type Attachment = v.InferOutput<typeof AttachmentSchema>;

export const AttachmentListSchema = v.pipe(v.array(AttachmentSchema), v.maxLength(MAX_ATTACHMENTS_PER_MESSAGE));

/** Chunk bytes as base64url (no padding). */
const ChunkData = v.pipe(v.string(), v.maxLength(Math.ceil((ATTACHMENT_CHUNK_BYTES * 4) / 3)));

export const BeginUploadParams = v.object({
  sessionId: Id,
  name: AttachmentName,
  /** Declared; a larger `size` is refused at once with `too-large`, before any byte is sent. */
  type: v.string(),
  size: v.pipe(v.number(), v.integer(), v.minValue(1)),
  sha256: BlobId,
});
export const BeginUploadResult = v.object({
  /** Absent when nothing needs sending (`attachment` is then present). */
  uploadId: v.optional(Id),
  chunkSize: Count,
  /** The session holds this blob already: nothing to send, `attachment` is ready to use. */
  attachment: v.optional(AttachmentSchema),
});

export const UploadChunkParams = v.object({
  uploadId: Id,
  /** From 0, in order; a chunk out of order or sent twice is refused with `conflict`. */
  index: v.pipe(v.number(), v.integer(), v.minValue(0)),
  data: ChunkData,
});
export const UploadChunkResult = v.object({ received: Count });

export const UploadIdParams = v.object({ uploadId: Id });
export const FinishUploadResult = v.object({ attachment: AttachmentSchema });

export const ReadBlobParams = v.object({
  sessionId: Id,
  id: BlobId,
  /** Byte offset to read from; each answer holds at most one chunk's worth. */
  offset: v.optional(Count),
});
export const ReadBlobResult = v.object({
  type: AttachmentTypeSchema,
  size: Count,
  offset: Count,
  data: ChunkData,
});
