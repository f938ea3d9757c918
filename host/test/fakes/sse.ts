import type { ServerResponse } from 'node:http';

/**
 * Server-sent events as the model APIs write them: optional `event:` line, one `data:` line,
 * a blank line. Both APIs put a whole JSON value on a single data line.
 */
export function sseFrame(data: string, event?: string): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${data}\n\n`;
}

/** Sends the 200 head of an event stream at once, so the client's request resolves before any event. */
export function startEventStream(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
}

/**
 * Writes one frame and waits until Node has handed it to the kernel, so a socket destroyed
 * right after still delivers it. Resolves false when the client is already gone.
 */
export function writeFrame(res: ServerResponse, frame: string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    res.write(frame, (error) => resolve(error === undefined || error === null));
  });
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
