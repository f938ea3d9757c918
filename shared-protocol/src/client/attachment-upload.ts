import type { Result } from '../errors.js';
import { ok } from '../errors.js';
import { toBase64Url, toHex } from '../encoding.js';
import type { Attachment } from '../rpc/blobs.js';
import type { MethodParams, MethodResult } from '../rpc/methods.js';
import { sha256 } from '../sha256.js';

type UploadMethod = 'blobs.begin' | 'blobs.chunk' | 'blobs.finish' | 'blobs.cancel';

/** A way to call the upload methods: a device's sealed channel, or the control socket (same schemas). */
export type UploadCall = <M extends UploadMethod>(
  method: M,
  params: MethodParams<M>,
) => Promise<Result<MethodResult<M>>>;

/** Chunks sent before the first answer comes back: enough to keep a link busy across its round trip,
 * few enough that a refused upload wastes little. Frames on one connection arrive in order. */
const CHUNKS_IN_FLIGHT = 4;

/**
 * Sends one file for a session: begin (with its SHA-256), its chunks in order, finish. Resolves
 * with the attachment a `sessions.send` names, or the host's refusal (its code is stable: too
 * large, wrong type, store full, …). A file the session already holds is not sent again.
 */
export async function uploadAttachment(
  call: UploadCall,
  input: {
    sessionId: string;
    name: string;
    type: string;
    bytes: Uint8Array;
    onProgress?: (sent: number) => void;
    /** A faster SHA-256 where the platform has one (WebCrypto, node:crypto), as lowercase hex. */
    digest?: (bytes: Uint8Array) => Promise<string>;
  },
): Promise<Result<Attachment>> {
  const { bytes } = input;
  const hash = input.digest ? await input.digest(bytes) : toHex(sha256(bytes));
  const begun = await call('blobs.begin', {
    sessionId: input.sessionId,
    name: input.name,
    type: input.type,
    size: bytes.length,
    sha256: hash,
  });
  if (!begun.ok) return begun;
  if (begun.value.attachment) return ok(begun.value.attachment);
  const uploadId = begun.value.uploadId!;
  const size = begun.value.chunkSize;
  const chunks = Math.ceil(bytes.length / size);
  let failed: Result<never> | undefined;
  let sent = 0;
  const inFlight: Promise<void>[] = [];
  for (let index = 0; index < chunks && !failed; index++) {
    const part = bytes.subarray(index * size, (index + 1) * size);
    const reply = call('blobs.chunk', { uploadId, index, data: toBase64Url(part) }).then((r) => {
      if (!r.ok) failed ??= r;
      else input.onProgress?.((sent += part.length));
    });
    inFlight.push(reply);
    if (inFlight.length >= CHUNKS_IN_FLIGHT) await inFlight.shift();
  }
  await Promise.all(inFlight);
  if (failed) return failed;
  const finished = await call('blobs.finish', { uploadId });
  return finished.ok ? ok(finished.value.attachment) : finished;
}
