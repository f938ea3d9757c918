import type { ProcessHandle } from '@tether/machine';

/**
 * Bytes of stdout queued for the ACP reader before the agent's output is paused: the pipe then
 * holds the agent back instead of memory growing here.
 */
export const ACP_READ_HIGH_WATER_BYTES = 1024 * 1024;

export interface ProcessStreams {
  /** The agent's stdout: ACP messages, one JSON object per line. */
  readable: ReadableStream<Uint8Array>;
  /** The agent's stdin. */
  writable: WritableStream<Uint8Array>;
}

/**
 * Web streams over a process started through an execution context, for the ACP SDK's
 * `ndJsonStream`. Stdout is queued up to ACP_READ_HIGH_WATER_BYTES and the process paused past
 * it; stderr goes to `onStderr` (kept bounded there). The readable ends when the process's output
 * ends; a write to a process that stopped reading fails, which closes the ACP connection.
 */
export function processStreams(handle: ProcessHandle, onStderr: (chunk: Uint8Array) => void): ProcessStreams {
  let paused = false;
  /** The process's output ended, or the reader cancelled: nothing more is queued. */
  let ended = false;
  const readable = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const stop = handle.onOutput((stream, chunk) => {
          if (stream === 'stderr') return onStderr(chunk);
          if (ended) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0 && !paused) {
            paused = true;
            handle.pause();
          }
        });
        void handle.exited.then(() => {
          ended = true;
          stop();
          try {
            controller.close();
          } catch {
            // Already cancelled by the reader.
          }
        });
      },
      pull() {
        if (!paused) return;
        paused = false;
        handle.resume();
      },
      cancel() {
        // The connection is done with the agent: nothing more is read (output still on its way
        // is dropped), and nothing should hold it.
        ended = true;
        handle.kill();
      },
    },
    { highWaterMark: ACP_READ_HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
  );
  const writable = new WritableStream<Uint8Array>({
    async write(chunk) {
      const written = await handle.write(chunk);
      if (!written.ok) throw new Error(`the agent does not read its input: ${written.error.message}`);
    },
    close() {
      handle.closeInput();
    },
    abort() {
      handle.closeInput();
    },
  });
  return { readable, writable };
}
